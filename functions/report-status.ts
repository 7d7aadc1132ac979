import { createReportStatusHandler } from '../lib/lambda/report-status.js';

export const handler = createReportStatusHandler();
