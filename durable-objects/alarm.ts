/**
 * Monotone alarm scheduling: of every delay asked for, the earliest wins. The object's alarm is one slot
 * read and written asynchronously, so two requests that each read-then-set can interleave and leave the
 * later (longer) one in place; requests are therefore applied one at a time, in order, each only moving
 * the alarm earlier. A pass that wants to run again later asks again from inside the alarm.
 * See docs/decisions/0111-background-retry-and-alarm.md.
 */

/** The part of the object's storage the scheduler uses (`DurableObjectStorage` satisfies it). */
export interface AlarmSlot {
  getAlarm(): Promise<number | null>;
  setAlarm(at: number): Promise<void>;
}

export class AlarmScheduler {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly slot: AlarmSlot,
    private readonly now: () => number,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** Asks for the alarm in `delayMs` (or sooner, if one is already set sooner). */
  schedule(delayMs: number): void {
    const at = this.now() + Math.max(0, delayMs);
    this.chain = this.chain.then(async () => {
      try {
        const current = await this.slot.getAlarm();
        if (current === null || current > at) await this.slot.setAlarm(at);
      } catch (e) {
        this.onError(e);
      }
    });
  }

  /** Resolves once every request made so far has been applied. */
  settled(): Promise<void> {
    return this.chain;
  }
}
