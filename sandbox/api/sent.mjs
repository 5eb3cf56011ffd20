// What the sandbox was asked to deliver, for the person watching it: broadcasts are kept in
// `state.sent` (the API's broadcast records have no content), and every send, broadcast or to a
// chat or phone, goes to `onSent`; `sentLines` turns either into readable lines.

/**
 * @typedef {import('../api.mjs').ApiContext} ApiContext
 * @typedef {import('../data.mjs').Chat} Chat
 * @typedef {import('../data.mjs').Message} Message
 * @typedef {import('../data.mjs').SentMessage} SentMessage
 * @typedef {import('../data.mjs').SentChatMessage} SentChatMessage
 */

/** The most sends `state.sent` keeps (the oldest go first). */
const MAX_SENT = 1000;

/**
 * Keeps one recipient's share of a broadcast in `state.sent` and tells `onSent`.
 * @param {ApiContext} api @param {SentMessage} sent
 */
export function recordSent(api, sent) {
	api.state.sent.push(sent);
	if (api.state.sent.length > MAX_SENT) api.state.sent.splice(0, api.state.sent.length - MAX_SENT);
	api.onSent?.(sent);
}

/**
 * Tells `onSent` about a message sent to a chat (the message itself is in `state.messages`).
 * @param {ApiContext} api @param {Message} message @param {Chat} chat
 */
export function reportChatSend(api, message, chat) {
	if (!api.onSent) return;
	/** @type {SentChatMessage} */
	const sent = {
		messageId: message.id,
		channel: 'whatsapp',
		recipient: chat.phone,
		chatId: chat.id,
		type: message.type,
		content: message.content,
		createdAt: message.createdAt,
	};
	api.onSent(sent);
}

/** @param {unknown} value */
const quoted = (value) => JSON.stringify(value);

/**
 * What a message to a chat holds, in words: its type, then the link, file or place, then the caption.
 * @param {SentChatMessage} sent
 */
function chatContent({ type, content }) {
	if (typeof content === 'string') return `${type} ${quoted(content)}`;
	const { url, fileName, mimeType, size, caption, latitude, longitude, name, address } =
		/** @type {Record<string, unknown>} */ (content);
	let what;
	if (type === 'location') {
		what = `location ${latitude}, ${longitude}`;
		if (name !== undefined) what += ` ${quoted(name)}`;
		if (address !== undefined) what += ` at ${quoted(address)}`;
	} else if (url !== undefined) {
		what = `${type} ${url}`;
		if (fileName !== undefined) what += ` as ${quoted(fileName)}`;
	} else {
		what = `${type} file ${quoted(fileName)} (${mimeType}, ${size} bytes)`;
	}
	return caption === undefined ? what : `${what}, caption ${quoted(caption)}`;
}

/**
 * Lines that show one recorded send to a person reading the sandbox's output: who got what. A
 * broadcast adds each link in it on a line of its own, to open or copy (a Send and Wait link); a
 * message to a chat or phone is one line.
 * @param {SentMessage | SentChatMessage} sent
 * @returns {string[]}
 */
export function sentLines(sent) {
	const head = `${sent.createdAt} sent ${sent.messageId} by ${sent.channel} to ${sent.recipient}`;
	if ('chatId' in sent) return [`${head} in chat ${sent.chatId}: ${chatContent(sent)}`];
	const content =
		sent.text !== null
			? JSON.stringify(sent.text)
			: `template ${sent.templateId} ${JSON.stringify(sent.variables)}`;
	const links = `${sent.text ?? ''} ${Object.values(sent.variables).join(' ')}`.match(
		/https?:\/\/[^\s"'<>]+/g,
	);
	return [`${head}: ${content}`, ...(links ?? []).map((link) => `    link: ${link}`)];
}
