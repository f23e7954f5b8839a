/**
 * @module Deadlines of one fixed length on one timer. A request carries up to three (its body arriving, the
 * upstream's first byte, the rest of the upstream answer), and nearly all are cleared within milliseconds: a
 * setTimeout/clearTimeout pair each cost more than a node in a list. Every deadline of a list has the same length,
 * so the list is in deadline order as it is built: one timer, armed for the oldest deadline, fires about once per
 * length under steady traffic and expires what is due. Deadlines are as exact as a timer of their own.
 */

export interface Deadline {
  readonly list: DeadlineList
  /** performance.now() at which it expires. */
  readonly at: number
  readonly expire: () => void
  prev: Deadline | undefined
  next: Deadline | undefined
}

export class DeadlineList {
  /** Oldest (first due) and newest deadline. */
  private head: Deadline | undefined
  private tail: Deadline | undefined
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(readonly ms: number) {}

  /** Calls `expire` in `ms` milliseconds unless the deadline is cleared first. `expire` must not throw. */
  start(expire: () => void): Deadline {
    const deadline: Deadline = { list: this, at: performance.now() + this.ms, expire, prev: this.tail, next: undefined }
    if (this.tail) this.tail.next = deadline
    else this.head = deadline
    this.tail = deadline
    if (!this.timer) this.arm(this.ms)
    return deadline
  }

  /** Stops a deadline; nothing happens when it expired or was cleared already. */
  clear(deadline: Deadline): void {
    const { prev, next } = deadline
    if (prev) prev.next = next
    else if (this.head === deadline) this.head = next
    else return
    if (next) next.prev = prev
    else this.tail = prev
    deadline.prev = undefined
    deadline.next = undefined
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(this.sweep, Math.max(1, Math.ceil(delayMs)))
    // Whatever waits for a deadline (a request, an upstream call) keeps the process alive by itself.
    this.timer.unref()
  }

  private readonly sweep = (): void => {
    this.timer = undefined
    const now = performance.now()
    for (let due = this.head; due && due.at <= now; due = this.head) {
      this.clear(due)
      due.expire()
    }
    // An expire that started a deadline armed a full-length timer; an older one may be due sooner.
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (this.head) this.arm(this.head.at - now)
  }
}

const lists = new Map<number, DeadlineList>()

/** The process's list of deadlines `ms` milliseconds long. */
export function deadlines(ms: number): DeadlineList {
  let list = lists.get(ms)
  if (!list) lists.set(ms, (list = new DeadlineList(ms)))
  return list
}

/** Clears a deadline (if any) in whichever list holds it. */
export function clearDeadline(deadline: Deadline | undefined): void {
  deadline?.list.clear(deadline)
}
