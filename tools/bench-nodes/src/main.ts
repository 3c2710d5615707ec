// The benchmark's pure-runtime loop as a Switchyard node service: intake → planner → tool →
// reflection → planner …, every node answering at once (no LLM). Started by tools/bench in place
// of the planner and reflection services.
import { bootstrapNodeService } from '@switchyard/worker';
import { AppModule } from './app/app.module';

void bootstrapNodeService(AppModule, {
  service: 'bench-nodes',
  port: Number(process.env['PORT'] ?? 8089),
});
