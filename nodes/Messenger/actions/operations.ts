import * as broadcast from './broadcast';
import * as chat from './chat';
import * as contact from './contact';
import * as message from './message';
import type { MessengerOperations } from './node.type';
import * as whatsappNumber from './whatsappNumber';

export const operations: MessengerOperations = {
	message: {
		sendMediaFile: message.sendMediaFile,
		sendMedia: message.sendMedia,
		sendMediaToPhone: message.sendMediaToPhone,
		sendLocation: message.sendLocation,
		sendAndWait: message.sendAndWait,
		get: message.get,
		downloadMedia: message.downloadMedia,
		removeReaction: message.removeReaction,
	},
	chat: {
		checkExisting: chat.checkExisting,
		getMessages: chat.getMessages,
		markImportant: chat.markImportant,
		reopen: chat.reopen,
	},
	contact: {
		create: contact.create,
		get: contact.get,
		search: contact.search,
		updateAttribute: contact.updateAttribute,
		replaceAttributes: contact.replaceAttributes,
	},
	broadcast: { send: broadcast.send, getStatus: broadcast.getStatus },
	whatsappNumber: { getAll: whatsappNumber.getAll },
};
