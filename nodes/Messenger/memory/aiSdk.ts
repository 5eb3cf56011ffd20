import type { INode, ISupplyDataFunctions, SupplyData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ChatTurn } from './chatTurns';

/** The SDK's name: a value, so that building the package needs no copy of it. */
const SDK_MODULE = '@n8n/ai-node-sdk';

/** The SDK's chat history (`ChatHistory`), as the memory fills it. */
export interface SdkChatHistory {
	getMessages(): Promise<ChatTurn[]>;
	addMessage(message: unknown): Promise<void>;
	addMessages(messages: unknown[]): Promise<void>;
	clear(): Promise<void>;
}

/** The SDK's memory (`ChatMemory`): what its `supplyMemory` hands to n8n's AI Agent. */
export interface SdkChatMemory {
	readonly chatHistory: SdkChatHistory;
	loadMessages(): Promise<ChatTurn[]>;
	saveTurn(input: string, output: string): Promise<void>;
	clear(): Promise<void>;
}

/** What the memory uses of n8n's AI SDK (`@n8n/ai-node-sdk` 0.31 in n8n 2.41). */
export interface MemorySdk {
	supplyMemory(context: ISupplyDataFunctions, memory: SdkChatMemory): SupplyData;
}

/**
 * n8n's AI SDK, loaded when the memory is used and not when n8n loads the package: n8n 1.x has no
 * SDK, and a node file that fails to load there makes n8n drop every node of the package.
 */
export async function loadMemorySdk(
	node: INode,
	load: () => Promise<unknown> = async () => (await import(SDK_MODULE)) as unknown,
): Promise<MemorySdk> {
	try {
		const sdk = (await load()) as Partial<MemorySdk> | undefined;
		if (typeof sdk?.supplyMemory === 'function') return sdk as MemorySdk;
	} catch {
		// Not there: an n8n without the SDK (1.x), said below.
	}
	throw new NodeOperationError(node, 'Messenger Chat Memory needs n8n 2.x', {
		description:
			'This n8n has no AI node SDK (@n8n/ai-node-sdk), which n8n 2.x brings. On n8n 1.x give the AI Agent another memory, e.g. a Messenger → Chat → Get Messages tool, or update n8n.',
	});
}
