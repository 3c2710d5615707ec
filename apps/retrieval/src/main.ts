import { bootstrapNodeService } from '@switchyard/worker';
import { AppModule } from './app/app.module';
import { servicePortOrExit } from '@switchyard/config';

void bootstrapNodeService(AppModule, {
  service: 'retrieval',
  port: servicePortOrExit('retrieval'),
});
