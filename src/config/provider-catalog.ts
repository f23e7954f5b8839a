/**
 * @module The provider catalogue: every known provider type, how it is configured from the environment and where
 * its API lives by default. Derived from the provider folders' manifests (`plugins/providers/<id>/manifest.ts`),
 * where each type is one row; nothing is listed here.
 */
import { providerManifests } from '../../plugins/providers/index.ts'
import type { ProviderTypeRow } from '../providers/manifest.ts'

export interface ProviderTypeInfo extends ProviderTypeRow {
  /** Which adapter in plugins/providers speaks to it: the id of the folder that declares the row. */
  adapter: string
}

type TypesOf<M> = M extends { types: infer Rows } ? keyof Rows & string : never
export type ProviderType = TypesOf<(typeof providerManifests)[number]>

export const PROVIDER_TYPES = Object.fromEntries(
  providerManifests.flatMap((manifest) => Object.entries<ProviderTypeRow>(manifest.types).map(([type, row]) => [type, { ...row, adapter: manifest.id }])),
) as Readonly<Record<ProviderType, ProviderTypeInfo>>

export const PROVIDER_TYPE_NAMES = Object.keys(PROVIDER_TYPES) as ProviderType[]
