/** Untrusted TypeScript module source → plain JavaScript (CommonJS body) for the sandbox, refusing value imports. */
import { createRequire } from "node:module";
import type ts from "typescript";
import { SandboxError } from "./sandbox-error.js";

let loaded: typeof ts | undefined;

/** TypeScript's compiler, loaded on first use: it costs most of a second at every `trace` start otherwise. */
function compiler(): typeof ts {
  return (loaded ??= createRequire(import.meta.url)("typescript") as typeof ts);
}

/**
 * Strips the types with TypeScript's own `transpileModule` (syntax only, no type check, no file access) and emits a
 * CommonJS body (`exports.default = …`) that the sandbox wraps in a function. A module must be self-contained:
 * `import type` is allowed (it is erased), any value import, `require(…)` or dynamic `import(…)` is refused here with
 * the specifier, before anything runs.
 */
export function transpileModuleSource(source: string, fileName = "module.ts"): string {
  const sourceFile = compiler().createSourceFile(fileName, source, compiler().ScriptTarget.ES2022, true, compiler().ScriptKind.TS);
  const imports = findValueImports(sourceFile);
  if (imports.length > 0) {
    throw new SandboxError("import", "load", `a capability module must be self-contained; it imports ${imports.join(", ")}`, imports);
  }
  const output = compiler().transpileModule(source, {
    fileName,
    reportDiagnostics: true,
    compilerOptions: { target: compiler().ScriptTarget.ES2022, module: compiler().ModuleKind.CommonJS, sourceMap: false, removeComments: false },
  });
  const problems = (output.diagnostics ?? []).map((diagnostic) => formatDiagnostic(diagnostic));
  if (problems.length > 0) throw new SandboxError("syntax", "load", problems.join("; "), problems);
  return output.outputText;
}

function formatDiagnostic(diagnostic: ts.Diagnostic): string {
  const text = compiler().flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  if (diagnostic.file === undefined || diagnostic.start === undefined) return text;
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return `${diagnostic.file.fileName}:${line + 1}:${character + 1}: ${text}`;
}

function findValueImports(sourceFile: ts.SourceFile): string[] {
  const found: string[] = [];
  const specifier = (node: ts.Expression | undefined): string => (node !== undefined && compiler().isStringLiteral(node) ? JSON.stringify(node.text) : "a module");
  const visit = (node: ts.Node): void => {
    if (compiler().isImportDeclaration(node)) {
      if (!isTypeOnlyImport(node)) found.push(specifier(node.moduleSpecifier));
    } else if (compiler().isImportEqualsDeclaration(node)) {
      if (!node.isTypeOnly) found.push(compiler().isExternalModuleReference(node.moduleReference) ? specifier(node.moduleReference.expression) : "a namespace");
    } else if (compiler().isExportDeclaration(node) && node.moduleSpecifier !== undefined) {
      if (!node.isTypeOnly) found.push(specifier(node.moduleSpecifier));
    } else if (compiler().isCallExpression(node)) {
      if (node.expression.kind === compiler().SyntaxKind.ImportKeyword) found.push(`${specifier(node.arguments[0])} (dynamic import)`);
      else if (compiler().isIdentifier(node.expression) && node.expression.text === "require") found.push(`${specifier(node.arguments[0])} (require)`);
    }
    compiler().forEachChild(node, visit);
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
  return bindings !== undefined && compiler().isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}
