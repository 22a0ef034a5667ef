/** Keywords whose value is one schema. */
const SCHEMA_KEYWORDS = ['items', 'not', 'additionalProperties', 'contains', 'propertyNames'];
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYWORDS = ['anyOf', 'allOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYWORDS = ['properties', '$defs', 'definitions', 'patternProperties'];

/**
 * Whether a JSON Schema can be used in strict structured output (OpenAI's `strict: true`): every
 * object schema lists its properties, closes them (`additionalProperties: false`) and requires
 * every one of them. Free-form objects (records) and optional properties are not allowed.
 */
export function allowsStrictMode(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return true;
  const node = schema as Record<string, unknown>;
  const type = node['type'];
  if (type === 'object' || (Array.isArray(type) && type.includes('object')) || 'properties' in node) {
    const properties = node['properties'];
    if (typeof properties !== 'object' || properties === null) return false;
    if (node['additionalProperties'] !== false) return false;
    const required = Array.isArray(node['required']) ? (node['required'] as unknown[]) : [];
    if (Object.keys(properties).some((key) => !required.includes(key))) return false;
  }
  const children = [
    ...SCHEMA_KEYWORDS.map((k) => node[k]),
    ...SCHEMA_LIST_KEYWORDS.flatMap((k) => (Array.isArray(node[k]) ? (node[k] as unknown[]) : [])),
    ...SCHEMA_MAP_KEYWORDS.flatMap((k): unknown[] => {
      const map = node[k];
      return typeof map === 'object' && map !== null ? Object.values(map) : [];
    }),
  ];
  return children.every(allowsStrictMode);
}
