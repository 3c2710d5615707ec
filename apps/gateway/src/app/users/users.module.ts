import { Module } from '@nestjs/common';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';

/** Profiles of a tenant's users (their `user_context`). */
@Module({ controllers: [UsersController], providers: [UsersRepository] })
export class UsersModule {}
