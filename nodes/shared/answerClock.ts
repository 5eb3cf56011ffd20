// The API's time. Every "since when" of a trigger is compared with the API's records (createdAt,
// calledAt), which the API stamps by its own clock: n8n's clock may be minutes or hours apart. An
// answer's Date header (handed over by apiRequest's `answerDate`, whole seconds) tells the API's
// clock; n8n's clock tells how long ago that answer came. docs/api.md, "The API's clock".

/**
 * The moment of an answer by the API's clock: its Date header (whole seconds), made exact by
 * n8n's clock when that falls in the same second (else the second's nearer end); without a Date,
 * n8n's clock. A point in time, for reasoning that allows for some slack (Call Finished).
 */
export function answerMoment(second: number | undefined): number {
	const now = Date.now();
	return second === undefined ? now : Math.min(Math.max(now, second), second + 999);
}

/**
 * What the API's answers say of its clock against n8n's, for a "since when" that must lose no
 * record: `since(at)` is the earliest time the API's clock can have shown at n8n's moment `at`.
 * An answer stamped in second D and received at n8n's R was stamped at D or later, at R or
 * earlier: the API's clock is at least D - R ahead of n8n's (negative: behind). The latest dated
 * answer counts (a clock set anew in between is followed). A record the API stamped in the same
 * second as that answer, before it, counts as after `at`: whole seconds cannot tell, and a message
 * is never lost for it (docs/triggers.md, "The API's clock").
 */
export class ApiClock {
	private aheadMs: number | undefined;

	constructor(private readonly now: () => number = Date.now) {}

	/** For apiRequest's `answerDate`: an answer stamped in `second` (ms) came in just now. */
	readonly answerDate = (second: number): void => {
		this.aheadMs = second - this.now();
	};

	/** The earliest time (ISO) the API's clock can have shown at n8n's moment `at` (ms). */
	since(at: number): string {
		return new Date(at + (this.aheadMs ?? 0)).toISOString();
	}
}
