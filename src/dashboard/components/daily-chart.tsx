/** @jsxImportSource preact */
/** @module One value per UTC day as a uPlot bar chart that follows its container's width. */
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'

const HEIGHT = 180
const BAR_COLOR = '#0172ad'

export function DailyChart({ title, days, values, format }: { title: string; days: string[]; values: number[]; format: (n: number) => string }) {
  const container = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = container.current!
    const plot = new uPlot(
      {
        width: element.clientWidth,
        height: HEIGHT,
        legend: { show: false },
        cursor: { y: false },
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, y: { range: (_plot, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [{}, { size: 70, values: (_plot, ticks) => ticks.map(format) }],
        series: [{}, { label: title, stroke: BAR_COLOR, fill: `${BAR_COLOR}99`, paths: uPlot.paths.bars!({ size: [0.7, 40] }), points: { show: false } }],
      },
      [days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000), values],
      element,
    )
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }))
    resize.observe(element)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [days, values, title, format])
  const total = values.reduce((sum, v) => sum + v, 0)
  return (
    <figure class="daily-chart">
      <figcaption>
        {title} <strong>{format(total)}</strong>
      </figcaption>
      <div ref={container} role="img" aria-label={`${title} per day, ${days.length} days, ${format(total)} in total`} />
    </figure>
  )
}
