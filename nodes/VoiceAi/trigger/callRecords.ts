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
} as const;

const CALL_RECORD: FieldContext = {
	subject: 'A record of the campaign data',
	workaround:
		"Call Finished needs each number and its call status. If your API names them differently, read the data with Voice AI → Campaign → Get Data on a Schedule Trigger and compare with the last run's (e.g. in a Data Table).",
};

/** One record of campaign data as the trigger reads it. */
export interface CallRead {
	phoneNumber: string;
	status: string;
	/** The attempt has ended (its status is one of CALL_OUTCOMES). */
	ended: boolean;
	/**
	 * What tells this attempt from the number's others: its status, attempts and calledAt (when
	 * the record has them), short enough to keep one per number.
	 */
	signature: string;
}

/** A 32-bit FNV-1a hash in base 36: a calledAt in 7 characters instead of 24. */
function shortHash(text: string): string {
	let hash = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash.toString(36);
}

/**
 * A record read whatever its spelling (CALL_FIELDS); without a number or a status it fails,
 * naming the field. `attempts` and `calledAt` are optional: without them a retry that ends with
 * the same status as the attempt before is told apart only if a read saw it being called.
 */
export function readCall(record: IDataObject): CallRead {
	const phoneNumber = textField(record, CALL_FIELDS.phoneNumber, CALL_RECORD);
	const status = textField(record, CALL_FIELDS.status, CALL_RECORD);
	const attempts = fieldValue(record, CALL_FIELDS.attempts);
	const calledAt = fieldValue(record, CALL_FIELDS.calledAt);
	const parts = [
		status,
		attempts === undefined ? '' : String(attempts),
		calledAt === undefined ? '' : shortHash(String(calledAt)),
	];
	return {
		phoneNumber,
		status,
		ended: (CALL_OUTCOMES as readonly string[]).includes(status),
		signature: parts.join('/').replace(/\/+$/, ''),
	};
}
