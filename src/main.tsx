import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from '@/app/app';
import { ServiceWorkerNotices } from '@/components/pwa/service-worker-notices';
import { registerServiceWorker } from '@/lib/pwa/service-worker';

const container = document.getElementById('root');
if (!container) {
  throw new Error('index.html is missing the #root element');
}

createRoot(container).render(
  <StrictMode>
    <App />
    <ServiceWorkerNotices />
  </StrictMode>,
);

registerServiceWorker();
