/**
 * @module One conversation with what every translator maps — a system text, a user turn of text and two images
 * (a data URL and a link), an assistant turn of text and two tool calls, both results, the user's reply — in chat
 * form and in Anthropic Messages form, each the exact translation of the other. The provider adapters' tests
 * translate the chat form, the Messages ingress test the Anthropic form; each adds only what is its own.
 */
export const WEATHER_TOOL = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
}

const call = (id: string, city: string) => ({ id, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city }) } })

export const CHAT_CONVERSATION: Record<string, unknown>[] = [
  { role: 'system', content: 'Be brief.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Weather?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      { type: 'image_url', image_url: { url: 'https://x/y.png' } },
    ],
  },
  { role: 'assistant', content: 'Checking.', tool_calls: [call('c1', 'Paris'), call('c2', 'Rome')] },
  { role: 'tool', tool_call_id: 'c1', content: '18C' },
  { role: 'tool', tool_call_id: 'c2', content: '25C' },
  { role: 'user', content: 'Thanks' },
]

const toolUse = (id: string, city: string) => ({ type: 'tool_use', id, name: 'get_weather', input: { city } })

/** The same conversation as an Anthropic Messages request's `system` and `messages`. */
export const ANTHROPIC_CONVERSATION = {
  system: 'Be brief.',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, toolUse('c1', 'Paris'), toolUse('c2', 'Rome')] },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: '18C' },
        { type: 'tool_result', tool_use_id: 'c2', content: '25C' },
        { type: 'text', text: 'Thanks' },
      ],
    },
  ],
}
