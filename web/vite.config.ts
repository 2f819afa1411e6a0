// Builds the admin console and the privacy portal into web/dist; the vault serves them (api/http/pages.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/',
  plugins: [react()],
  build: {
    outDir: here('dist'),
    emptyOutDir: true,
    assetsDir: 'static',
    // The strict Content-Security-Policy allows no inline script or style: keep every asset a file.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    rolldownOptions: {
      input: { console: here('console/index.html'), portal: here('portal/index.html') },
    },
  },
});
