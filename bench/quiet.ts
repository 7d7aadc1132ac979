// Imported first: the handlers' logger reads its level when its module loads, and the benchmark's
// figures must not drown in their log lines. POWERTOOLS_LOG_LEVEL=INFO npm run bench shows them.
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
export {};
