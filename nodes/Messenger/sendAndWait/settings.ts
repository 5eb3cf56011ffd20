import type { IDataObject } from 'n8n-workflow';

import { InputError } from '../../shared/errors';
import { requireOneOf } from '../../shared/validation';
import type { FormFieldType, ResponseType } from './properties';
import { DEFAULT_LABELS, FORM_FIELD_TYPES, RESPONSE_TYPES } from './properties';

/** A node parameter by name, with a fallback: the execute and webhook contexts read them alike. */
export type ParameterReader = (name: string, fallback: unknown) => unknown;

export interface FormField {
	label: string;
	type: FormFieldType;
	required: boolean;
	placeholder: string;
	options: string[];
}

/** What the page shows and accepts: read when the message is sent and again when the link is opened. */
export interface ResponseSettings {
	responseType: ResponseType;
	/** Approval: the labels of the buttons; `disapproveLabel` only with Approve and Decline. */
	approveLabel: string;
	disapproveLabel?: string;
	fields: FormField[];
	title: string;
	description: string;
	buttonLabel: string;
}

/** The most fields a Custom Form takes. */
export const MAX_FORM_FIELDS = 50;

const text = (value: unknown, fallback: string): string => {
	const trimmed = typeof value === 'string' ? value.trim() : '';
	return trimmed === '' ? fallback : trimmed;
};

function formField(row: IDataObject, index: number): FormField {
	const label = text(row.fieldLabel, '');
	if (label === '') throw new InputError(`Form field ${index + 1} has no Field Label`);
	const type = requireOneOf(row.fieldType ?? 'text', `Field Type of "${label}"`, FORM_FIELD_TYPES);
	const rows = (row.fieldOptions as { values?: IDataObject[] } | undefined)?.values ?? [];
	const options = rows.map((option) => text(option.option, '')).filter((option) => option !== '');
	if (type === 'dropdown' && options.length === 0) {
		throw new InputError(`Form field "${label}" is a dropdown list without options`);
	}
	return {
		label,
		type,
		required: row.requiredField === true,
		placeholder: text(row.placeholder, ''),
		options,
	};
}

/** The Custom Form's fields, checked: each has a label, labels differ (they key the output). */
function formFields(value: unknown): FormField[] {
	const rows = (value as { values?: IDataObject[] } | undefined)?.values ?? [];
	if (rows.length === 0) throw new InputError('Form Fields is empty: add at least one field');
	if (rows.length > MAX_FORM_FIELDS) {
		throw new InputError(`Form Fields has ${rows.length} fields; at most ${MAX_FORM_FIELDS}`);
	}
	const fields = rows.map(formField);
	const labels = new Set<string>();
	for (const { label } of fields) {
		if (labels.has(label)) throw new InputError(`Two form fields have the label "${label}"`);
		labels.add(label);
	}
	return fields;
}

/** The response settings of the node, checked; `message` is the page's text by default. */
export function responseSettings(parameter: ParameterReader, message: string): ResponseSettings {
	const responseType = requireOneOf(
		parameter('responseType', 'approval'),
		'Response Type',
		RESPONSE_TYPES,
	);
	const options = parameter('options', {}) as IDataObject;
	const approval = (parameter('approvalOptions', {}) as { values?: IDataObject }).values ?? {};
	const double = responseType === 'approval' && approval.approvalType === 'double';
	return {
		responseType,
		approveLabel: text(approval.approveLabel, DEFAULT_LABELS.approve),
		disapproveLabel: double ? text(approval.disapproveLabel, DEFAULT_LABELS.disapprove) : undefined,
		fields: responseType === 'customForm' ? formFields(parameter('formFields', {})) : [],
		title: text(options.responseFormTitle, ''),
		description: text(options.responseFormDescription, message),
		buttonLabel: text(options.responseFormButtonLabel, DEFAULT_LABELS.submit),
	};
}

/** The label written before the link in the message. */
export function linkLabel(options: IDataObject): string {
	return text(options.messageButtonLabel, DEFAULT_LABELS.link);
}
