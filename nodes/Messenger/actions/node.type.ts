import type { OperationTable } from '../../shared/router';

/** Resource → operations of the Messenger node. */
export type MessengerMap = {
	message:
		| 'sendMediaFile'
		| 'sendMedia'
		| 'sendMediaToPhone'
		| 'sendLocation'
		| 'sendAndWait'
		| 'get'
		| 'downloadMedia'
		| 'removeReaction';
	chat: 'checkExisting' | 'getMessages' | 'markImportant' | 'reopen';
	contact: 'create' | 'get' | 'search' | 'updateAttribute' | 'replaceAttributes';
	broadcast: 'send' | 'getStatus';
	whatsappNumber: 'getAll';
};

export type MessengerOperations = OperationTable<MessengerMap>;
