import { bootstrapNodeService } from '@switchyard/worker';
import { AppModule } from './app/app.module';

void bootstrapNodeService(AppModule, {
  service: 'reflection',
  port: Number(process.env['PORT'] ?? process.env['REFLECTION_PORT'] ?? 8084),
});
