// The helper types `supabase gen types typescript` appends after `Database` (Tables<'x'>,
// TablesInsert, TablesUpdate, Enums, CompositeTypes), as postgres-meta's template writes them,
// for gen-types-render.ts. Unformatted: the renderer formats the whole file.
const q = (value: unknown): string => JSON.stringify(value);

/** The helper types the CLI appends: Tables<'x'>, TablesInsert<'x'>, Enums<'x'>… */
export function helperTypes(defaultSchema: string): string {
  const schemaOf = (param: string, kind: string) =>
    `DatabaseWithoutInternals[${param}["schema"]]["${kind}"]`;
  const pick = (name: string, param: string, slot: string, infer: string) => `
export type ${name}<
  ${param} extends keyof DefaultSchema["Tables"] | { schema: keyof DatabaseWithoutInternals },
  TableName extends ${param} extends { schema: keyof DatabaseWithoutInternals }
    ? keyof ${schemaOf(param, 'Tables')}
    : never = never
> = ${param} extends { schema: keyof DatabaseWithoutInternals }
  ? ${schemaOf(param, 'Tables')}[TableName] extends { ${slot}: infer ${infer} } ? ${infer} : never
  : ${param} extends keyof DefaultSchema["Tables"]
  ? DefaultSchema["Tables"][${param}] extends { ${slot}: infer ${infer} } ? ${infer} : never
  : never
`;
  const member = (name: string, param: string, key: string, kind: string) => `
export type ${name}<
  ${param} extends keyof DefaultSchema["${kind}"] | { schema: keyof DatabaseWithoutInternals },
  ${key} extends ${param} extends { schema: keyof DatabaseWithoutInternals }
    ? keyof ${schemaOf(param, kind)}
    : never = never
> = ${param} extends { schema: keyof DatabaseWithoutInternals }
  ? ${schemaOf(param, kind)}[${key}]
  : ${param} extends keyof DefaultSchema["${kind}"]
  ? DefaultSchema["${kind}"][${param}]
  : never
`;
  const rowParam = 'DefaultSchemaTableNameOrOptions';
  return `type DatabaseWithoutInternals = Omit<Database, '__InternalSupabase'>

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, ${q(defaultSchema)}>]

export type Tables<
  ${rowParam} extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends ${rowParam} extends { schema: keyof DatabaseWithoutInternals }
    ? keyof (${schemaOf(rowParam, 'Tables')} & ${schemaOf(rowParam, 'Views')})
    : never = never
> = ${rowParam} extends { schema: keyof DatabaseWithoutInternals }
  ? (${schemaOf(rowParam, 'Tables')} & ${schemaOf(rowParam, 'Views')})[TableName] extends { Row: infer R }
    ? R
    : never
  : ${rowParam} extends keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
  ? (DefaultSchema["Tables"] & DefaultSchema["Views"])[${rowParam}] extends { Row: infer R }
    ? R
    : never
  : never
${pick('TablesInsert', rowParam, 'Insert', 'I')}${pick('TablesUpdate', rowParam, 'Update', 'U')}${member(
    'Enums',
    'DefaultSchemaEnumNameOrOptions',
    'EnumName',
    'Enums',
  )}${member('CompositeTypes', 'PublicCompositeTypeNameOrOptions', 'CompositeTypeName', 'CompositeTypes')}`;
}
