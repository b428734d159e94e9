// The "browser" tooldef's sign-in opens (`--auth-browser`) in the conformance run: it loads
// the authorization URL it is given and follows the redirects, as a browser whose user has
// already consented would, which ends at tooldef's loopback redirect URI with the code. It
// knows nothing of OAuth.
//
// Usage: node browser.mjs AUTHORIZATION_URL

const url = process.argv.at(-1);
try {
  const response = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(15000) });
  await response.text();
  if (!response.ok) {
    console.error(`browser: ${response.url} answered HTTP ${response.status}`);
    process.exit(1);
  }
} catch (error) {
  console.error(`browser: cannot load ${url}: ${error.cause?.message ?? error.message}`);
  process.exit(1);
}
