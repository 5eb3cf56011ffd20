import type { INodeProperties } from 'n8n-workflow';

import { valueOptions } from '../../shared/descriptions';
import { whatsappNumberOption } from '../actions/common';
import { limitWaitTime } from './waitLimit';

/** How the person answers: n8n's own names, so workflows and the agents' review step carry over. */
export const RESPONSE_TYPES = ['approval', 'freeText', 'customForm'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

/** The field types of a Custom Form (n8n's own values). */
export const FORM_FIELD_TYPES = [
	'text',
	'number',
	'email',
	'date',
	'dropdown',
	'textarea',
] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

export const DEFAULT_LABELS = {
	link: 'Respond',
	approve: 'Approve',
	disapprove: 'Decline',
	submit: 'Submit',
} as const;

const approvalOptions: INodeProperties = {
	displayName: 'Approval Options',
	name: 'approvalOptions',
	type: 'fixedCollection',
	placeholder: 'Add option',
	default: {},
	displayOptions: { show: { responseType: ['approval'] } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Type of Approval',
					name: 'approvalType',
					type: 'options',
					default: 'single',
					options: [
						{ name: 'Approve Only', value: 'single' },
						{ name: 'Approve and Decline', value: 'double' },
					],
				},
				{
					displayName: 'Approve Button Label',
					name: 'approveLabel',
					type: 'string',
					default: 'Approve',
				},
				{
					displayName: 'Decline Button Label',
					name: 'disapproveLabel',
					type: 'string',
					default: 'Decline',
					displayOptions: { show: { approvalType: ['double'] } },
				},
			],
		},
	],
};

const formFields: INodeProperties = {
	displayName: 'Form Fields',
	name: 'formFields',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true, sortable: true },
	placeholder: 'Add Form Field',
	default: {},
	displayOptions: { show: { responseType: ['customForm'] } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Field Label',
					name: 'fieldLabel',
					type: 'string',
					default: '',
					placeholder: 'e.g. Which slot suits you?',
					description: 'Shown above the field; also the key of its value in the output',
					required: true,
				},
				{
					displayName: 'Field Options',
					name: 'fieldOptions',
					type: 'fixedCollection',
					typeOptions: { multipleValues: true, sortable: true },
					placeholder: 'Add Field Option',
					default: { values: [{ option: '' }] },
					displayOptions: { show: { fieldType: ['dropdown'] } },
					options: [
						{
							displayName: 'Values',
							name: 'values',
							values: [{ displayName: 'Option', name: 'option', type: 'string', default: '' }],
						},
					],
				},
				{
					displayName: 'Field Type',
					name: 'fieldType',
					type: 'options',
					default: 'text',
					options: valueOptions(FORM_FIELD_TYPES, {
						labels: { dropdown: 'Dropdown List', textarea: 'Text Area' },
					}),
				},
				{
					displayName: 'Placeholder',
					name: 'placeholder',
					type: 'string',
					default: '',
					displayOptions: { hide: { fieldType: ['dropdown', 'date'] } },
				},
				{
					displayName: 'Required Field',
					name: 'requiredField',
					type: 'boolean',
					default: false,
					description: 'Whether the person must fill in this field to submit the form',
				},
			],
		},
	],
};

const options: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [
		limitWaitTime,
		{
			displayName: 'Link Label',
			name: 'messageButtonLabel',
			type: 'string',
			default: 'Respond',
			description: 'Written before the link in the message, e.g. "Respond: https://…"',
		},
		{
			displayName: 'Response Form Button Label',
			name: 'responseFormButtonLabel',
			type: 'string',
			default: 'Submit',
			description: 'The submit button of the Free Text and Custom Form pages',
		},
		{
			displayName: 'Response Form Description',
			name: 'responseFormDescription',
			type: 'string',
			default: '',
			description: 'Text on the page the link opens; the message when empty',
		},
		{
			displayName: 'Response Form Title',
			name: 'responseFormTitle',
			type: 'string',
			default: '',
			description: 'Heading of the page the link opens',
		},
		{ ...whatsappNumberOption, displayOptions: { show: { '/channel': ['whatsapp'] } } },
	],
};

/** Response Type and what it needs, then Options: the part n8n's review step for agents keeps. */
export const responseProperties: INodeProperties[] = [
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		default: 'approval',
		options: [
			{
				name: 'Approval',
				value: 'approval',
				description: 'The person approves (or declines) on the page the link opens',
			},
			{
				name: 'Free Text',
				value: 'freeText',
				description: 'The person writes an answer on the page the link opens',
			},
			{
				name: 'Custom Form',
				value: 'customForm',
				description: 'The person fills in a form of your fields on the page the link opens',
			},
		],
	},
	approvalOptions,
	formFields,
	options,
];
