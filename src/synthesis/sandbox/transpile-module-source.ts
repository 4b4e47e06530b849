/** Untrusted TypeScript module source → plain JavaScript (CommonJS body) for the sandbox, refusing value imports. */
import ts from "typescript";
import { SandboxError } from "./sandbox-error.js";

/**
 * Strips the types with TypeScript's own `transpileModule` (syntax only, no type check, no file access) and emits a
 * CommonJS body (`exports.default = …`) that the sandbox wraps in a function. A module must be self-contained:
 * `import type` is allowed (it is erased), any value import, `require(…)` or dynamic `import(…)` is refused here with
 * the specifier, before anything runs.
 */
export function transpileModuleSource(source: string, fileName = "module.ts"): string {
  const sourceFile = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const imports = findValueImports(sourceFile);
  if (imports.length > 0) {
    throw new SandboxError("import", "load", `a capability module must be self-contained; it imports ${imports.join(", ")}`, imports);
  }
  const output = ts.transpileModule(source, {
    fileName,
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, sourceMap: false, removeComments: false },
  });
  const problems = (output.diagnostics ?? []).map((diagnostic) => formatDiagnostic(diagnostic));
  if (problems.length > 0) throw new SandboxError("syntax", "load", problems.join("; "), problems);
  return output.outputText;
}

function formatDiagnostic(diagnostic: ts.Diagnostic): string {
  const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  if (diagnostic.file === undefined || diagnostic.start === undefined) return text;
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return `${diagnostic.file.fileName}:${line + 1}:${character + 1}: ${text}`;
}

function findValueImports(sourceFile: ts.SourceFile): string[] {
  const found: string[] = [];
  const specifier = (node: ts.Expression | undefined): string => (node !== undefined && ts.isStringLiteral(node) ? JSON.stringify(node.text) : "a module");
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      if (!isTypeOnlyImport(node)) found.push(specifier(node.moduleSpecifier));
    } else if (ts.isImportEqualsDeclaration(node)) {
      if (!node.isTypeOnly) found.push(ts.isExternalModuleReference(node.moduleReference) ? specifier(node.moduleReference.expression) : "a namespace");
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined) {
      if (!node.isTypeOnly) found.push(specifier(node.moduleSpecifier));
    } else if (ts.isCallExpression(node)) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) found.push(`${specifier(node.arguments[0])} (dynamic import)`);
      else if (ts.isIdentifier(node.expression) && node.expression.text === "require") found.push(`${specifier(node.arguments[0])} (require)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (clause === undefined) return false; // `import "x"` runs x for its effects
  if (clause.isTypeOnly) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}
