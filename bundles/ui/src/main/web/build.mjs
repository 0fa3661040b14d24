// Bundles the UI into <outdir> (argv[2]): assets/app-<hash>.js and assets/style-<hash>.css, and index.html naming them.
// Hashed names let the server cache assets for a year while index.html is always revalidated.
import { build } from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, basename } from 'node:path';

const outdir = process.argv[2];
if (!outdir) {
  console.error('usage: node build.mjs <outdir>');
  process.exit(2);
}
rmSync(outdir, { recursive: true, force: true });
mkdirSync(join(outdir, 'assets'), { recursive: true });
const result = await build({
  entryPoints: { app: 'src/main.js', style: 'src/style.css' },
  bundle: true,
  minify: true,
  sourcemap: false,
  format: 'esm',
  target: ['es2020'],
  entryNames: '[name]-[hash]',
  outdir: join(outdir, 'assets'),
  metafile: true,
  legalComments: 'eof',
  logLevel: 'warning',
});
const names = {};
for (const [file, meta] of Object.entries(result.metafile.outputs)) {
  if (meta.entryPoint) {
    names[meta.entryPoint.endsWith('.css') ? 'css' : 'js'] = basename(file);
  }
}
const html = readFileSync('index.html', 'utf8')
  .replace('%APP_JS%', `/ui/assets/${names.js}`)
  .replace('%STYLE_CSS%', `/ui/assets/${names.css}`);
writeFileSync(join(outdir, 'index.html'), html);
console.log(`ui: ${names.js}, ${names.css} -> ${outdir}`);
