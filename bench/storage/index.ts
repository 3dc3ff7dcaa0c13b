import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { coreServicesToken, createGateway, staticTokenAuth, systemContext } from '@berth/core/testing-free-placeholder';
