import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import { asNodeError, InputError } from './errors';

export interface Operation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
}

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
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
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
			const responseData = await operation.execute.call(this, itemIndex);
			returnData.push(
				...this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(responseData), {
					itemData: { item: itemIndex },
				}),
			);
		} catch (error) {
			const failure = asNodeError(this.getNode(), error, itemIndex);
			if (!this.continueOnFail() && !runsAsTool(this)) throw failure;
			returnData.push({ json: failureItem(failure), pairedItem: { item: itemIndex } });
		}
	}
	return [returnData];
}

/** Whether n8n runs the node as an agent's tool: it then has the type `<package>.<name>Tool`. */
function runsAsTool(context: IExecuteFunctions): boolean {
	return context.getNode().type.endsWith('Tool');
}

/** The output item of a failed item under "Continue On Fail": message, description, HTTP code. */
function failureItem(error: NodeApiError | NodeOperationError): IDataObject {
	const failure: IDataObject = { error: error.message };
	if (error.description) failure.description = error.description;
	const httpCode = (error as NodeApiError).httpCode;
	if (httpCode) failure.httpCode = httpCode;
	return failure;
}
