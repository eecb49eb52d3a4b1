/** Validates JUnit XML against the vendored Jenkins/Surefire-style schema (test/fixtures/junit.xsd). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';

const XSD = readFileSync(join(import.meta.dirname, '../fixtures/junit.xsd'), 'utf8');

/** The schema errors of `xml`, empty when it validates. */
export async function junitErrors(xml: string): Promise<string[]> {
  const r = await validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [{ fileName: 'junit.xsd', contents: XSD }] });
  return r.valid ? [] : r.errors.map((e) => e.rawMessage);
}
