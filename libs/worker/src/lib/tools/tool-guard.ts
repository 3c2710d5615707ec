import { type RunErrorCode } from '@switchyard/contracts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@nestjs/common';

// The second line of defence of every service that runs tools: an error thrown where nobody can
// catch it (an 'error' event emitted before a listener was attached, a throw in a timer or socket
// callback, a rejected promise nobody awaited) inside a tool's work fails that tool call — an
// observation for the agent — instead of the process. The tool's asynchronous context (kept by
// AsyncLocalStorage through timers, sockets and promises) tells whose error it is; an error from
// outside any tool still ends the process, as Node would have.

/** Error codes of the socket layer: a crash with one of these is a network failure of the tool. */
const NETWORK_CODES =
  /^(E(CONN(REFUSED|RESET|ABORTED)|NET(UNREACH|DOWN|RESET)|HOST(UNREACH|DOWN)|ADDR(NOTAVAIL|INUSE)|PIPE|TIMEDOUT|AI_AGAIN|NOTFOUND|PROTO)|UND_ERR_SOCKET|UND_ERR_CONNECT_TIMEOUT)$/;

/** A tool's error that escaped its promise chain, caught by the guard. */
export class ToolCrashError extends Error {
  readonly code: RunErrorCode;
  readonly retryable: boolean;
  constructor(tool: string, cause: unknown) {
    const err = cause instanceof Error ? cause : new Error(String(cause));
    const errno = (err as NodeJS.ErrnoException).code;
    const network = typeof errno === 'string' && NETWORK_CODES.test(errno);
    super(`${tool} failed: ${err.message}`, { cause: err });
    this.name = 'ToolCrashError';
    // A network failure is worth another delivery (as the http tools' own network_error is); any
    // other escaped error is a defect of the tool and would only repeat.
    this.code = network ? 'network_error' : 'tool_crashed';
    this.retryable = network;
  }
}

interface ToolScope {
  tool: string;
  fail: (err: unknown) => void;
}

const scopes = new AsyncLocalStorage<ToolScope>();
const logger = new Logger('ToolGuard');
let installed = false;

/** An error no tool owns ends the process, as Node would have (logged first). */
function fatal(err: unknown, origin: string): void {
  logger.fatal({ err, origin, msg: 'uncaught error outside any tool: the process exits' });
  process.exitCode = 1;
  // Give pino's destination a tick to flush.
  setImmediate(() => process.exit(1));
}

function install(): void {
  if (installed) {
    return;
  }
  installed = true;
  process.on('uncaughtException', (err, origin) => {
    const scope = scopes.getStore();
    if (scope) {
      scope.fail(err);
    } else {
      fatal(err, origin);
    }
  });
  process.on('unhandledRejection', (reason) => {
    const scope = scopes.getStore();
    if (scope) {
      scope.fail(reason);
    } else {
      fatal(reason, 'unhandledRejection');
    }
  });
}

/**
 * Runs a tool's work so that no error of it can take the process down: the result is the work's,
 * or a ToolCrashError once an error of the work's asynchronous context escaped to the process.
 */
export function guardToolWork<T>(tool: string, work: () => Promise<T>): Promise<T> {
  install();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown) => {
      logger.warn({
        tool,
        err,
        msg: 'a tool error escaped its call; the tool call fails, the service goes on',
      });
      if (!settled) {
        settled = true;
        reject(new ToolCrashError(tool, err));
      }
    };
    scopes.run({ tool, fail }, () => {
      let running: Promise<T>;
      try {
        running = work();
      } catch (err) {
        running = Promise.reject(err);
      }
      running.then(
        (value) => {
          if (!settled) {
            settled = true;
            resolve(value);
          }
        },
        (err: unknown) => {
          if (!settled) {
            settled = true;
            reject(err);
          }
        },
      );
    });
  });
}
