// The rows of `cairn usage` are counted where the daemon counts them, so the CLI's report and the
// web dashboard's agree; this module keeps the CLI's imports where they were.
export * from '@cairn/server/usage-report';
