/**
 * The parts of a multi-stage Dockerfile the image test reproduces: each stage's WORKDIR, its
 * COPY instructions, ENV, RUN lines and CMD; a FROM's image with the ARG defaults given before it. Line continuations are joined; comments dropped.
 */
export interface DockerStage {
  from: string;
  name?: string;
  workdir: string;
  copies: { from?: string; sources: string[]; dest: string }[];
  env: Record<string, string>;
  runs: string[];
  cmd?: string[];
}

export function parseDockerfile(text: string): DockerStage[] {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: DockerStage[] = [];
  // ARGs before the first FROM: the defaults FROM lines expand (`FROM ${NODE_IMAGE}`).
  const globalArgs: Record<string, string> = {};
  for (const line of lines) {
    const [, instruction, rest] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    if (!instruction) {
      throw new Error(`Dockerfile: cannot read "${line}"`);
    }
    const op = instruction.toUpperCase();
    if (op === 'ARG' && stages.length === 0) {
      const [, k, v = ''] = /^(\w+)(?:=(\S*))?$/.exec(rest) ?? [];
      if (!k) {
        throw new Error(`Dockerfile: cannot read "${line}"`);
      }
      globalArgs[k] = v.replace(/^"|"$/g, '');
      continue;
    }
    if (op === 'FROM') {
      const [image, as, name] = rest.split(/\s+/);
      stages.push({
        from: image.replace(
          /\$\{(\w+)\}|\$(\w+)/g,
          (_, a?: string, b?: string) => globalArgs[a ?? b ?? ''] ?? '',
        ),
        ...(as?.toUpperCase() === 'AS' && name ? { name } : {}),
        workdir: '/',
        copies: [],
        env: {},
        runs: [],
      });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) {
      throw new Error(`Dockerfile: ${op} before FROM`);
    }
    switch (op) {
      case 'WORKDIR':
        stage.workdir = rest.startsWith('/') ? rest : `${stage.workdir.replace(/\/$/, '')}/${rest}`;
        break;
      case 'COPY': {
        const words = rest.split(/\s+/);
        const flags = words.filter((w) => w.startsWith('--'));
        const paths = words.filter((w) => !w.startsWith('--'));
        const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
        stage.copies.push({ ...(from ? { from } : {}), sources: paths.slice(0, -1), dest: paths.at(-1)! });
        break;
      }
      case 'ENV':
        for (const [, k, v] of rest.matchAll(/(\w+)=("[^"]*"|\S+)/g)) {
          stage.env[k] = v.replace(/^"|"$/g, '');
        }
        break;
      case 'RUN':
        stage.runs.push(rest);
        break;
      case 'CMD':
        stage.cmd = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : ['/bin/sh', '-c', rest];
        break;
      default:
        break; // USER, EXPOSE, LABEL …: nothing a file layout reproduces
    }
  }
  return stages;
}
