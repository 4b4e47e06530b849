/** The dashboard's one HTML page: a header with the runs and views, and the view the script renders below it. */

/** The page; every script comes from the dashboard itself (no CDN). */
export function pageHtml(title: string): string {
  const escaped = title.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escaped}</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
  header { background: #1f2933; color: #fff; padding: 8px 16px; display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
  header a { color: #cbd2d9; text-decoration: none; padding: 4px 8px; border-radius: 4px; }
  header a.current { background: #3e4c59; color: #fff; }
  header select { font: inherit; }
  main { padding: 12px 16px; }
  table { border-collapse: collapse; margin: 8px 0; background: #fff; }
  th, td { border: 1px solid #d9e2ec; padding: 3px 8px; text-align: left; vertical-align: top; }
  th { background: #f0f4f8; }
  td.number { text-align: right; font-variant-numeric: tabular-nums; }
  .error { background: #ffe3e3; border: 1px solid #e12d39; padding: 8px 12px; margin: 8px 0; }
  .notice { background: #fff3c4; border: 1px solid #f0b429; padding: 6px 12px; margin: 8px 0; }
  .charts { display: flex; flex-wrap: wrap; gap: 8px; }
  .chart { background: #fff; border: 1px solid #d9e2ec; padding: 4px; }
  .message { background: #fff; border: 1px solid #d9e2ec; margin: 6px 0; padding: 6px 10px; white-space: pre-wrap; }
  .message .role { font-weight: 600; color: #52606d; }
  .message.tool { background: #f0f4f8; }
  pre { background: #fff; border: 1px solid #d9e2ec; padding: 8px; overflow: auto; max-height: 480px; }
  .filters { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }
  .passed { color: #0e7c3a; } .failed { color: #c0392b; }
  #status { margin-left: auto; font-size: 12px; color: #9aa5b1; }
</style>
</head>
<body>
<header><strong>trace dashboard</strong><nav id="runs"></nav><nav id="views"></nav><span id="status"></span></header>
<main id="view">loading…</main>
<script src="/assets/vega.min.js"></script>
<script src="/assets/vega-lite.min.js"></script>
<script src="/assets/vega-embed.min.js"></script>
<script type="module" src="/assets/dashboard-client.js"></script>
</body>
</html>
`;
}
