/** The document around each page: local stylesheet and script only, no external requests. Pure. */
import { html, type Html } from './html.js';

export const ASSET_PREFIX = '/console/assets/';

export function pageShell(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · step-runner</title>
<link rel="stylesheet" href="${ASSET_PREFIX}console.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="home" href="/">step-runner</a><span class="top-note">local console</span></header>
<main id="main" tabindex="-1">
${body}
</main>
<script src="${ASSET_PREFIX}console.js" defer></script>
</body>
</html>
`;
}
