/**
 * @module A line's endpoint row: the batch API adapters ask it (its API shape, its path) what a line is, as every
 * other module does, rather than comparing endpoint ids.
 */
import { type Endpoint, type EndpointId, endpoint } from '../../protocols/endpoints.ts'

/** The row the line's `endpointId` names; undefined for an id the table does not have. */
export function rowOf(endpointId: string): Endpoint | undefined {
  return endpoint(endpointId as EndpointId) as Endpoint | undefined
}
