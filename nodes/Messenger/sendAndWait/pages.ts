import type { FormField, ResponseSettings } from './settings';

/**
 * The pages the link opens, served by the node itself: one self-contained HTML document each (no
 * script, no outside asset), readable on a phone, every text escaped. Forms post to the page's
 * own address (the signed link) as multipart/form-data, which n8n requires for custom forms.
 */

/** The Content-Security-Policy the pages are served with: their inline style and a post to themselves. */
export const PAGE_CSP =
	"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const HTML_ESCAPES: Record<string, string> = {
	'&': '&amp;',
	'<': '&lt;',
	'>': '&gt;',
	'"': '&quot;',
	"'": '&#39;',
};

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(value: unknown): string {
	return String(value ?? '').replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]);
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;padding:16px;background:#f4f5f7;color:#1f2328;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:30rem;margin:0 auto;background:#fff;border:1px solid #d8dce3;border-radius:10px;padding:20px}
h1{font-size:1.3rem;margin:0 0 12px}
p.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:0 0 16px}
label{display:block;font-weight:600;margin:14px 0 6px}
input,select,textarea{width:100%;font:inherit;padding:10px;border:1px solid #b8bec8;border-radius:6px;background:#fff}
textarea{min-height:7rem}
.buttons{display:flex;gap:10px;flex-wrap:wrap;margin-top:18px}
button{flex:1 1 8rem;font:inherit;font-weight:600;padding:12px 16px;border-radius:6px;border:1px solid #1a7f37;background:#1a7f37;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1f2328;border-color:#b8bec8}
.error{color:#b42318;background:#fef3f2;border:1px solid #fecdca;border-radius:6px;padding:8px 10px;margin:0 0 12px}
.required{color:#b42318}
`;

/** A whole page: `body` is HTML already escaped. */
export function page(title: string, body: string): string {
	return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

function intro(settings: ResponseSettings, error?: string): string {
	const heading = settings.title ? `<h1>${escapeHtml(settings.title)}</h1>` : '';
	const problem = error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '';
	return `${heading}${problem}<p class="text">${escapeHtml(settings.description)}</p>`;
}

function form(inner: string, buttons: string): string {
	return `<form method="post" enctype="multipart/form-data">${inner}<div class="buttons">${buttons}</div></form>`;
}

const button = (label: string, extra = '') =>
	`<button type="submit"${extra}>${escapeHtml(label)}</button>`;

/** The name a form field is posted under: its position, as n8n's own forms do. */
export const fieldName = (index: number) => `field-${index}`;

function input(field: FormField, name: string, value: string): string {
	const required = field.required ? ' required' : '';
	const placeholder = field.placeholder ? ` placeholder="${escapeHtml(field.placeholder)}"` : '';
	const common = `id="${name}" name="${name}"${required}`;
	if (field.type === 'textarea') {
		return `<textarea ${common}${placeholder}>${escapeHtml(value)}</textarea>`;
	}
	if (field.type === 'dropdown') {
		const choices = [''].concat(field.options).map((option) => {
			const selected = option === value ? ' selected' : '';
			const text = option === '' ? 'Choose…' : option;
			return `<option value="${escapeHtml(option)}"${selected}>${escapeHtml(text)}</option>`;
		});
		return `<select ${common}>${choices.join('')}</select>`;
	}
	const type = field.type === 'number' ? 'number" step="any' : field.type;
	return `<input type="${type}" ${common}${placeholder} value="${escapeHtml(value)}">`;
}

function fieldsHtml(fields: FormField[], values: Record<string, string>): string {
	return fields
		.map((field, index) => {
			const name = fieldName(index);
			const mark = field.required ? ' <span class="required">*</span>' : '';
			return `<label for="${name}">${escapeHtml(field.label)}${mark}</label>${input(field, name, values[name] ?? '')}`;
		})
		.join('');
}

/**
 * The page the link opens: the buttons of an approval, the text box of Free Text, or the custom
 * form; `error` and `values` show it again after a submission that was refused.
 */
export function responsePage(
	settings: ResponseSettings,
	{ error, values = {} }: { error?: string; values?: Record<string, string> } = {},
): string {
	const title = settings.title || 'Your response';
	if (settings.responseType === 'approval') {
		const decline =
			settings.disapproveLabel === undefined
				? ''
				: button(settings.disapproveLabel, ' name="approved" value="false" class="secondary"');
		const approve = button(settings.approveLabel, ' name="approved" value="true"');
		return page(title, `${intro(settings, error)}${form('', `${decline}${approve}`)}`);
	}
	const fields: FormField[] =
		settings.responseType === 'freeText'
			? [{ label: 'Response', type: 'textarea', required: true, placeholder: '', options: [] }]
			: settings.fields;
	const inner = fieldsHtml(fields, values);
	return page(title, `${intro(settings, error)}${form(inner, button(settings.buttonLabel))}`);
}

/** The page after an answer was recorded. */
export const RECORDED_PAGE = page(
	'Response recorded',
	'<h1>Got it, thanks</h1><p class="text">Your response was recorded. This page can be closed now.</p>',
);
