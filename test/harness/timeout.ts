// Suites against a real API server wait for real controllers (the garbage collector, later ours).
import { jest } from '@jest/globals';

jest.setTimeout(60000);
