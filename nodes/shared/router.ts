import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import { asNodeError, InputError } from './errors';

/** Output items an operation makes itself (JSON with binary data); the router pairs them. */
export class OutputItems {
	constructor(readonly items: INodeExecutionData[]) {}
}

/** An operation run for each input item; its results become output items paired with the item. */
export interface ItemOperation {
	description: INodeProperties[];
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
	): Promise<IDataObject | IDataObject[] | OutputItems>;
}

/**
 * An operation run once per execution, for the first item, that gives the node's output itself:
 * one that pauses the execution (Send and Wait for Response) sends one message, not one per item.
 */
export interface ExecutionOperation {
	description: INodeProperties[];
	runsOnce: true;
	execute(this: IExecuteFunctions): Promise<INodeExecutionData[]>;
}

export type Operation = ItemOperation | ExecutionOperation;

/** Every operation of every resource, keyed as the node's map says; a missing one fails to compile. */
export type OperationTable<M extends Record<string, string>> = {
	[R in keyof M]: { [O in M[R]]: Operation };
};

/**
 * The one per-item loop of a node: runs the chosen operation for each input item, pairs every
 * output item with its input, and with "Continue On Fail" turns an item's error into an output
 * item instead of stopping the workflow. Run as an AI agent's tool, a failed call is always
 * answered that way: the model reads the error (which names the field) and can correct itself,
 * where some agent versions would otherwise hand it an empty result.
 */
export async function runOperation<M extends Record<string, string>>(
	this: IExecuteFunctions,
	operations: OperationTable<M>,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const operationOf = (itemIndex: number): Operation => {
		const resource = this.getNodeParameter('resource', itemIndex) as keyof M;
		const operationName = this.getNodeParameter('operation', itemIndex) as string;
		const operation = (operations[resource] as Record<string, Operation> | undefined)?.[
			operationName
		];
		if (!operation) {
			throw new InputError(
				`The operation "${operationName}" of "${String(resource)}" is not known`,
			);
		}
		return operation;
	};
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		let runsOnce = false;
		try {
			const operation = operationOf(itemIndex);
			runsOnce = 'runsOnce' in operation;
			if ('runsOnce' in operation) return [await operation.execute.call(this)];
			const responseData = await operation.execute.call(this, itemIndex);
			if (responseData instanceof OutputItems) {
				returnData.push(
					...responseData.items.map((item) => ({ ...item, pairedItem: { item: itemIndex } })),
				);
				continue;
			}
			returnData.push(
				...this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(responseData), {
					itemData: { item: itemIndex },
				}),
			);
		} catch (error) {
			const failure = asNodeError(this.getNode(), error, itemIndex);
			if (!this.continueOnFail() && !runsAsTool(this)) throw failure;
			returnData.push({ json: failureItem(failure), pairedItem: { item: itemIndex } });
			if (runsOnce) break;
		}
	}
	return [returnData];
}

/**
 * Whether n8n runs the node as an agent's tool: it then has the type `<package>.<name>Tool`. Not
 * as an agent's human review step (`<name>HitlTool`): its failure must stop the gated tool call,
 * where an output item would read as the person's refusal.
 */
export function runsAsTool(context: IExecuteFunctions): boolean {
	const type = context.getNode().type;
	return type.endsWith('Tool') && !type.endsWith('HitlTool');
}

/** The output item of a failed item under "Continue On Fail": message, description, HTTP code. */
function failureItem(error: NodeApiError | NodeOperationError): IDataObject {
	const failure: IDataObject = { error: error.message };
	if (error.description) failure.description = error.description;
	const httpCode = (error as NodeApiError).httpCode;
	if (httpCode) failure.httpCode = httpCode;
	return failure;
}
