/**
 * TypeDoc run in-process with the repository's typedoc.json, every warning
 * and error it logs collected rather than printed.
 */
import { Application, Logger, LogLevel, TSConfigReader, TypeDocReader, type TypeDocOptions } from 'typedoc';

/** What one run logged at warning level or above, and whether it produced a project. */
export interface TypedocRun {
  messages: string[];
  converted: boolean;
}

class CollectingLogger extends Logger {
  readonly messages: string[] = [];

  override log(message: string, level: Exclude<LogLevel, LogLevel.None>): void {
    super.log(message, level);
    if (level >= LogLevel.Warn) this.messages.push(`${LogLevel[level]}: ${message}`);
  }
}

/**
 * Convert and validate with the options of `config` (a typedoc.json), as
 * overridden by `overrides`; when `render` is true, write the output to the
 * `out` the options name.
 */
export async function runTypedoc(config: string, overrides: TypeDocOptions, render: boolean): Promise<TypedocRun> {
  const readers = [new TypeDocReader(), new TSConfigReader()];
  const app = await Application.bootstrapWithPlugins({ options: config, ...overrides }, readers);
  const logger = new CollectingLogger();
  app.logger = logger;
  const project = await app.convert();
  if (project) {
    app.validate(project);
    if (render && logger.messages.length === 0) await app.generateOutputs(project);
  }
  return { messages: logger.messages, converted: project !== undefined };
}
