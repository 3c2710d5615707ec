import { bootstrapNodeService } from '@switchyard/worker';
import { AppModule } from './app/app.module';

void bootstrapNodeService(AppModule, {
  service: 'planner',
  port: Number(process.env['PORT'] ?? process.env['PLANNER_PORT'] ?? 8082),
});
