import { defineConfig } from 'vite';

// The api serves the built files under /console (apps/api/src/console-static.ts), same origin as
// the API: no proxy, no CDN. JSX is compiled by esbuild (no React plugin: no fast refresh needed).
export default defineConfig({
  base: '/console/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    rollupOptions: {
      // Libraries ship React Server Components' "use client" markers, meaningless in a client-only bundle.
      onwarn(warning, warn) {
        if (
          warning.code === 'MODULE_LEVEL_DIRECTIVE' ||
          (warning.code === 'SOURCEMAP_ERROR' && warning.id?.includes('node_modules'))
        )
          return;
        warn(warning);
      },
    },
  },
});
