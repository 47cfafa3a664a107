import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import ts from "typescript";

/** One import of a compiled file: its specifier and whether it is `import("…")` (loaded only when reached). */
export interface ModuleImport {
  specifier: string;
  dynamic: boolean;
}

/** The imports of a compiled `.js` or `.d.ts` file, from its syntax tree (comments and strings are not imports). */
export function moduleImports(file: string): ModuleImport[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const found: ModuleImport[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier))
        found.push({ specifier: node.moduleSpecifier.text, dynamic: false });
    } else if (ts.isImportTypeNode(node)) {
      const literal = ts.isLiteralTypeNode(node.argument) ? node.argument.literal : undefined;
      if (literal !== undefined && ts.isStringLiteral(literal))
        found.push({ specifier: literal.text, dynamic: false });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, dynamic: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); `undefined` for relative and built-in. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/") || isBuiltin(specifier)) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}
