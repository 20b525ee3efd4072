// The browser suite's peer: Crawlee's PuppeteerCrawler (npm's crawlee and puppeteer-core) on
// Debian's Chromium, crawling the same site as `squall crawl --render`: every page waited for
// until the network is idle (puppeteer's networkidle0, as squall's), its links enqueued within
// the site. Prints {"pages": N} on stdout at the end.
//   node bench/browser_crawlee.mjs <crawlee dir> <chromium> <start URL> <concurrency>
import { createRequire } from 'node:module';
import path from 'node:path';

const [crawleeDir, chromium, start, concurrency] = process.argv.slice(2);
const require = createRequire(path.join(crawleeDir, 'node_modules', 'x.js'));
const { PuppeteerCrawler, Configuration } = require('crawlee');
const puppeteer = require('puppeteer-core');

let pages = 0;
const n = Number(concurrency);
const crawler = new PuppeteerCrawler({
  launchContext: {
    launcher: puppeteer,
    launchOptions: {
      executablePath: chromium,
      headless: 'shell',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
             '--disable-background-networking', '--disable-component-update'],
    },
  },
  minConcurrency: n,
  maxConcurrency: n,
  maxRequestRetries: 2,
  useSessionPool: false,
  persistCookiesPerSession: false,
  preNavigationHooks: [async (_ctx, gotoOptions) => { gotoOptions.waitUntil = 'networkidle0'; }],
  async requestHandler({ enqueueLinks }) {
    pages += 1;
    await enqueueLinks({ strategy: 'same-origin' });
  },
}, new Configuration({ persistStorage: false, purgeOnStart: true }));

await crawler.run([start]);
console.log(JSON.stringify({ pages }));
