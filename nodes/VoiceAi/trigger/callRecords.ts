import type { IDataObject } from 'n8n-workflow';

import type { FieldContext } from '../../shared/answerFields';
import { fieldValue, textField } from '../../shared/answerFields';

/** How a call attempt can end (docs/api.md, Campaign data); `pending` and `calling` have not. */
export const CALL_OUTCOMES = ['answered', 'no_answer', 'busy', 'failed'] as const;

export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** How each field the trigger reads may be spelled: docs/api.md's name first. */
export const CALL_FIELDS = {
	phoneNumber: ['phoneNumber', 'phone', 'phone_number', 'number'],
	status: ['status', 'callStatus', 'call_status'],
	attempts: ['attempts', 'attempt', 'attemptCount', 'attempt_count'],
	calledAt: ['calledAt', 'called_at', 'lastCalledAt', 'last_called_at'],
	durationSeconds: ['durationSeconds', 'duration_seconds', 'duration'],
} as const;

const CALL_RECORD: FieldContext = {
	subject: 'A record of the campaign data',
	workaround:
		"Call Finished needs each number and its call status. If your API names them differently, read the data with Voice AI → Campaign → Get Data on a Schedule Trigger and compare with the last run's (e.g. in a Data Table).",
};

/** The statuses a record's signature tells apart, each by its place (an unknown one: 7). */
const SIGNED_STATUSES = ['', 'pending', 'calling', ...CALL_OUTCOMES] as const;
const UNKNOWN_STATUS = 7;
const CALLING = SIGNED_STATUSES.indexOf('calling');
/** Of a signature: which attempt (attempts and calledAt), below its status. */
const ATTEMPT = (1 << 23) - 1;

/** FNV-1a, 32 bits, from `offset`: the signature's hashes. */
export function fnv1a(text: string, offset = 0x811c9dc5): number {
	let hash = offset;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash;
}

/** One record of campaign data as the trigger reads it. */
export interface CallRead {
	phoneNumber: string;
	status: string;
	/** The attempt has ended (its status is one of CALL_OUTCOMES). */
	ended: boolean;
	/** Which attempt it is, when the record says. */
	attempts?: number;
	/** The record's calledAt (ms, the API's clock), when it has one: calledAt.ts says what it stamps. */
	calledAt?: number;
	/** The record's durationSeconds, in ms (0 when it has none). */
	durationMs: number;
	/**
	 * What tells this attempt from the number's others, in 26 bits (callState.ts keeps it): the
	 * status (3 bits; an unknown one as 7, its text in the hash), attempts (4 bits, modulo 16) and
	 * a 19-bit hash of calledAt (when the record has them).
	 */
	signature: number;
}

const finite = (value: unknown): number | undefined => {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
};

/**
 * A record read whatever its spelling (CALL_FIELDS); without a number or a status it fails,
 * naming the field. `attempts` and `calledAt` are optional: without them a retry that ends with
 * the same status as the attempt before is told apart only if a read saw it being called.
 */
export function readCall(record: IDataObject): CallRead {
	const phoneNumber = textField(record, CALL_FIELDS.phoneNumber, CALL_RECORD);
	const status = textField(record, CALL_FIELDS.status, CALL_RECORD);
	const attempts = finite(fieldValue(record, CALL_FIELDS.attempts));
	const calledAt = fieldValue(record, CALL_FIELDS.calledAt);
	const known = (SIGNED_STATUSES as readonly string[]).indexOf(status);
	const code = known > 0 ? known : UNKNOWN_STATUS;
	let hash = calledAt === undefined ? 0 : fnv1a(String(calledAt));
	if (code === UNKNOWN_STATUS) hash ^= fnv1a(status);
	const stamped = calledAt === undefined ? NaN : apiTime(String(calledAt));
	const duration = finite(fieldValue(record, CALL_FIELDS.durationSeconds)) ?? 0;
	return {
		phoneNumber,
		status,
		ended: (CALL_OUTCOMES as readonly string[]).includes(status),
		...(attempts === undefined ? {} : { attempts }),
		...(Number.isFinite(stamped) ? { calledAt: stamped } : {}),
		durationMs: duration * 1000,
		signature: (code << 23) | ((Math.floor(attempts ?? 0) & 0xf) << 19) | (hash & 0x7ffff),
	};
}

/**
 * The attempts a signature says (modulo 16), whether its attempt is being called, and whether it
 * is past calling (an outcome, or a status the trigger does not know).
 */
export function signedAttempt(signature: number): {
	attempts: number;
	calling: boolean;
	pastCalling: boolean;
} {
	const code = (signature >>> 23) & 7;
	return {
		attempts: (signature >>> 19) & 0xf,
		calling: code === CALLING,
		pastCalling: code > CALLING,
	};
}

/** Whether two signatures are of one attempt (the same attempts and calledAt), in any status. */
export const sameAttempt = (a: number, b: number): boolean => (a & ATTEMPT) === (b & ATTEMPT);

/**
 * A time the API wrote, in ms: a date and time without a zone is read as UTC (the API's clock,
 * not the zone n8n runs in). NaN for text that is no date.
 */
export function apiTime(text: string): number {
	const zoneless = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text.trim());
	return Date.parse(zoneless ? `${text.trim().replace(' ', 'T')}Z` : text);
}
