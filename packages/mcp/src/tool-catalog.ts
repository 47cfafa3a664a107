import { type AnySchema, DefinitionError } from "@flowrt/core";
import type { FlowHost, RegisteredFlow } from "@flowrt/engine";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** The separator between a flow id and an action name in a tool's name, unless told otherwise. */
export const DEFAULT_TOOL_NAME_SEPARATOR = ".";

/** A flow action offered as an MCP tool. */
export interface ActionTool {
  /** The tool's name: `<flowId><separator><action>`. */
  name: string;
  flow: RegisteredFlow;
  action: string;
  /** The tool as `tools/list` shows it. */
  tool: Tool;
}

type JsonSchemaObject = Tool["inputSchema"];

/**
 * A JSON Schema of `schema` (zod 4's `z.toJSONSchema`): what JSON Schema cannot say (a transform's output, a
 * custom check) is left open rather than refused, and `$schema` is kept (draft 2020-12, as MCP assumes). A schema
 * zod cannot convert at all (a cycle through a transform) is an open object: the engine still validates the call.
 */
function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchemaObject {
  try {
    return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchemaObject;
  } catch {
    return { type: "object" };
  }
}

/**
 * The arguments of an action's tool, in the shape of the HTTP action body: `{ input, sessionId? }`. `input` is the
 * block's own schema (any JSON when it has none); wrapping it keeps a block input that is not an object (MCP tool
 * arguments always are) and a block field named `sessionId` apart from the call's own.
 */
function argumentsSchema(inputSchema: AnySchema | undefined): z.ZodType {
  return z.object({
    input: (inputSchema as z.ZodType | undefined) ?? z.unknown().optional(),
    sessionId: z
      .string()
      .optional()
      .describe("A session of yours to run in; without it a new session is created and its id returned."),
  });
}

/** What a completed call answers as `structuredContent`: the request, its session, and the block's output. */
function resultSchema(outputSchema: AnySchema | undefined): z.ZodType {
  return z.object({
    requestId: z.string(),
    sessionId: z.string(),
    output: (outputSchema as z.ZodType | undefined) ?? z.unknown(),
  });
}

/**
 * Every action of every flow of a host, as tools, by name. Webhook handlers are not actions and never appear
 * (specification: webhook rule 4). Two actions whose names meet in one tool name (flow `a.b`'s `c` and flow
 * `a`'s `b.c` under the `.` separator) are a `DefinitionError` naming both, as no client could call both.
 */
export class ToolCatalog {
  private readonly byName = new Map<string, ActionTool>();

  constructor(host: FlowHost, separator: string = DEFAULT_TOOL_NAME_SEPARATOR) {
    for (const flow of host.registry.flows) {
      for (const [action, definition] of Object.entries(flow.definition.actions)) {
        const name = `${flow.id}${separator}${action}`;
        const other = this.byName.get(name);
        if (other) {
          throw new DefinitionError(
            `MCP tool name "${name}" would name both flow "${other.flow.id}" action "${other.action}" and flow ` +
              `"${flow.id}" action "${action}"; pick another toolNameSeparator for mcpInbound/serveMcpStdio.`,
          );
        }
        const description =
          definition.description ??
          definition.block.description ??
          `Runs action "${action}" of flow "${flow.id}".`;
        const tool: Tool = {
          name,
          title: `${flow.id} ${action}`,
          description,
          inputSchema: jsonSchemaOf(argumentsSchema(definition.block.inputSchema), "input"),
          outputSchema: jsonSchemaOf(resultSchema(definition.block.outputSchema), "output"),
        };
        this.byName.set(name, { name, flow, action, tool });
      }
    }
  }

  get(name: string): ActionTool | undefined {
    return this.byName.get(name);
  }

  /** The tools of one flow, in the order its actions are declared. */
  ofFlow(flowId: string): ActionTool[] {
    return [...this.byName.values()].filter((entry) => entry.flow.id === flowId);
  }
}
