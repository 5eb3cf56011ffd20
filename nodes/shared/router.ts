import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

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
 * item instead of stopping the workflow.
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
				throw new NodeOperationError(
					this.getNode(),
					`The operation "${operationName}" of "${String(resource)}" is not known`,
					{ itemIndex },
				);
			}
			const responseData = await operation.execute.call(this, itemIndex);
			returnData.push(
				...this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(responseData), {
					itemData: { item: itemIndex },
				}),
			);
		} catch (error) {
			if (this.continueOnFail()) {
				const failure: IDataObject = { error: (error as Error).message };
				const description = (error as NodeApiError).description;
				if (description) failure.description = description;
				const httpCode = (error as NodeApiError).httpCode;
				if (httpCode) failure.httpCode = httpCode;
				returnData.push({ json: failure, pairedItem: { item: itemIndex } });
				continue;
			}
			if (error instanceof NodeApiError) {
				if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
				// The constructor hands back the same error when given a NodeApiError.
				throw new NodeApiError(this.getNode(), error as unknown as JsonObject, { itemIndex });
			}
			if (error instanceof NodeOperationError && error.context.itemIndex === undefined) {
				error.context.itemIndex = itemIndex;
			}
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
		}
	}
	return [returnData];
}
