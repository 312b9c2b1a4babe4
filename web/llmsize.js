// llmsize page glue: the only web-specific JavaScript. It configures the Emscripten module,
// loads the app module (relaxed-SIMD or SIMD128 build, see the end), and gives the C++ side (src/app/platform/web_main.cpp) what only the
// browser has: the canvas size and devicePixelRatio, the URL fragment (share links), the
// embed flag, the browser's language, the clipboard, file drops, pastes, and touch input. No
// framework, no fetches other than the page's own files.
(function () {
  'use strict';
  const canvas = document.getElementById('canvas');
  const loading = document.getElementById('loading');
  const status = document.getElementById('status');
  const params = new URLSearchParams(location.search);
  const t0 = performance.now();

  function fail(msg) {
    status.textContent = msg;
    loading.classList.add('failed');
    loading.style.display = 'flex';
  }

  window.llmsizeGlue = {
    canvasSize() {
      return { width: window.innerWidth, height: window.innerHeight, dpr: window.devicePixelRatio || 1 };
    },
    // The page's address for share links, without the embed flag (a link opens the full page).
    pageUrl() {
      const q = new URLSearchParams(location.search);
      q.delete('embed');
      const qs = q.toString();
      return location.origin + location.pathname + (qs ? '?' + qs : '');
    },
    openUrl(url) { window.open(url, '_blank', 'noopener'); },
    // A file made here from the figures (image/png: the SVG text rasterised), saved by the browser.
    download(name, mime, text) {
      if (mime === 'image/png') downloadPng(name, text);
      else saveBlob(name, new Blob([text], { type: mime }));
    },
    // The fragment as it is: the core's codec decodes (and checks) its percent-escapes.
    fragment() { return location.hash || ''; },
    embed() { return params.has('embed') && params.get('embed') !== '0'; },
    // The browser's language: the interface's when the link names none ("zh-CN" → Chinese).
    language() { return navigator.language || ''; },
    // The Chinese glyphs (built from the string table), fetched once, when Chinese is chosen:
    // the English page never loads them.
    loadCjkFont() {
      fetch('llmsize-zh.otf').then((r) => {
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.arrayBuffer();
      }).then((b) => Module.setCjkFont(new Uint8Array(b)))
        .catch((e) => Module.cjkFontFailed('llmsize-zh.otf: ' + e.message));
    },
    setFragment(link) {
      // replaceState: editing does not flood the history; no hashchange event fires.
      if (link && link !== location.hash) history.replaceState(null, '', link);
    },
    // The file picker: a hidden input, opened from the UI's click (the browser allows it while the
    // click's activation lasts); the files go where dropped files go.
    pickFiles() { picker.click(); },
    copyText(text) {
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).catch(() => legacyCopy(text));
      } else {
        legacyCopy(text);
      }
    },
    firstFrame() {
      loading.style.display = 'none';
      window.llmsizeFirstFrameMs = performance.now();
      window.llmsizeStartupMs = performance.now() - t0;
    },
    fail,
    mark(name) { performance.mark('llmsize:' + name); },
  };

  // A PNG of an SVG document: drawn on a canvas at twice its size, then saved.
  function downloadPng(name, svg) {
    const img = new Image();
    const src = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
    img.onload = () => {
      const c = document.createElement('canvas');
      c.width = img.width * 2;
      c.height = img.height * 2;
      const g = c.getContext('2d');
      g.scale(2, 2);
      g.drawImage(img, 0, 0);
      URL.revokeObjectURL(src);
      c.toBlob((png) => saveBlob(name, png), 'image/png');
    };
    img.src = src;
  }

  // The browser saves a blob made here as a file (a blob: URL; nothing is sent).
  function saveBlob(name, blob) {
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    canvas.focus();
  }

  function legacyCopy(text) {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.appendChild(ta);
    ta.select();
    try { document.execCommand('copy'); } catch (e) { /* nothing else to try */ }
    ta.remove();
    canvas.focus();
  }

  window.Module = {
    canvas,
    print: (t) => console.log(t),
    printErr: (t) => console.warn(t),
    setStatus: (t) => { if (t) status.textContent = t; },
    onAbort: (what) => fail('llmsize stopped: ' + what),
    onRuntimeInitialized: () => { window.llmsizeRuntimeMs = performance.now(); },
  };

  // Share links: a fragment typed into the address bar or followed from another page.
  window.addEventListener('hashchange', () => {
    if (Module.openLink) Module.openLink(location.hash);
  });

  // Paste: JSON anywhere imports a config; inside a text field it is typed.
  document.addEventListener('paste', (e) => {
    const text = (e.clipboardData || window.clipboardData).getData('text');
    if (text && Module.pasteText && Module.pasteText(text)) e.preventDefault();
  });

  // Drag and drop of a config.json or a model file.
  let dragDepth = 0;
  document.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; document.body.classList.add('dragging'); });
  document.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; document.body.classList.remove('dragging'); } });
  document.addEventListener('dragover', (e) => e.preventDefault());
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    dragDepth = 0;
    document.body.classList.remove('dragging');
    if (e.dataTransfer && e.dataTransfer.files) openFiles(e.dataTransfer.files);
  });
  const picker = document.createElement('input');
  picker.type = 'file';
  picker.id = 'llmsize-files';
  picker.multiple = true;
  picker.accept = '.gguf,.safetensors,.json';
  picker.style.display = 'none';
  picker.addEventListener('change', () => { openFiles(picker.files); picker.value = ''; });
  document.body.appendChild(picker);

  // Dropped or picked files, in turn: configs first, then model files (whose header then sets
  // the model and stands beside the estimate).
  async function openFiles(list) {
    const files = Array.from(list || []);
    const model = (f) => /\.(gguf|safetensors)$/i.test(f.name);
    files.sort((a, b) => model(a) - model(b));
    for (const file of files) {
      if (model(file)) { await readModelFile(file); continue; }
      if (file.size > 4 * 1024 * 1024) { Module.importText('', file.name + ' (larger than 4 MiB)'); continue; }
      Module.importText(await file.text(), file.name);
    }
  }

  // A GGUF model file or a safetensors checkpoint: only its header is read (File.slice of the
  // first bytes, more while the header continues), here on this machine; the weights are never read.
  // The page does not draw while it reads: each await would otherwise wait behind a frame
  // (bench/README.md: half the time of reading a 5.9 MB header).
  async function readModelFile(file) {
    const pause = typeof Module.pauseMainLoop === 'function' && typeof Module.resumeMainLoop === 'function';
    if (pause) Module.pauseMainLoop();
    try {
      let want = 4 * 1024 * 1024;
      let head = new Uint8Array(0);
      for (let round = 0; round < 8; ++round) {
        const n = Math.min(want, file.size);
        // Only the bytes not read yet: reading a file through the browser costs more than parsing.
        const next = new Uint8Array(n);
        next.set(head);
        next.set(new Uint8Array(await file.slice(head.length, n).arrayBuffer()), head.length);
        head = next;
        const more = Module.readModelFile(file.name, head, file.size);
        if (!more || more <= n || n >= file.size) return;
        want = Math.min(Math.max(more, 2 * want), 256 * 1024 * 1024);
      }
    } finally {
      if (pause) Module.resumeMainLoop();
    }
  }

  // Touch: Emscripten's GLFW does not place touches; turn them into mouse events, and
  // vertical drags that start outside a widget into wheel scrolling.
  function mouse(type, t, buttons) {
    canvas.dispatchEvent(new MouseEvent(type, { clientX: t.clientX, clientY: t.clientY, pageX: t.pageX,
      pageY: t.pageY, button: 0, buttons, bubbles: true, cancelable: true }));
  }
  let lastY = null;
  window.addEventListener('touchstart', (e) => {
    if (e.target !== canvas) return;
    e.preventDefault(); e.stopPropagation();
    const t = e.changedTouches[0];
    lastY = e.touches.length === 2 ? t.clientY : null;
    if (e.touches.length === 1) { mouse('mousemove', t, 0); mouse('mousedown', t, 1); }
  }, { capture: true, passive: false });
  window.addEventListener('touchmove', (e) => {
    if (e.target !== canvas) return;
    e.preventDefault(); e.stopPropagation();
    const t = e.changedTouches[0];
    if (e.touches.length === 2 && lastY !== null) {
      canvas.dispatchEvent(new WheelEvent('wheel', { deltaY: (lastY - t.clientY) * 2, clientX: t.clientX,
        clientY: t.clientY, bubbles: true, cancelable: true }));
      lastY = t.clientY;
    } else {
      mouse('mousemove', t, 1);
    }
  }, { capture: true, passive: false });
  window.addEventListener('touchend', (e) => {
    if (e.target !== canvas) return;
    e.preventDefault(); e.stopPropagation();
    if (e.touches.length === 0) mouse('mouseup', e.changedTouches[0], 0);
    lastY = null;
  }, { capture: true, passive: false });
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());

  // The app module: the relaxed-SIMD build (FMA GEMM) where the engine validates relaxed SIMD,
  // else the SIMD128 build. `?simd=128` forces the latter. The probe is the smallest module
  // using f32x4.relaxed_madd; validate() compiles nothing and fetches nothing.
  const RELAXED_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 61, 1, 59, 0,
    253, 12, ...new Array(16).fill(0), 253, 12, ...new Array(16).fill(0), 253, 12, ...new Array(16).fill(0),
    253, 133, 2, 11]);
  let relaxed = false;
  try { relaxed = params.get('simd') !== '128' && WebAssembly.validate(RELAXED_PROBE); } catch (e) { relaxed = false; }
  window.llmsizeModule = relaxed ? 'llmsize_app_relaxed.js' : 'llmsize_app.js';
  // The module's code is fetched and compiled from here, while its loader script downloads and
  // runs (the loader would only ask for it once it has run): Emscripten's instantiateWasm hook
  // then instantiates the compiled module. A server without application/wasm gets the bytes compiled.
  const wasmFile = window.llmsizeModule.replace(/\.js$/, '.wasm');
  const bytes = () => fetch(wasmFile).then((r) => {
    if (!r.ok) throw new Error('HTTP ' + r.status);
    return r.arrayBuffer();
  }).then((b) => WebAssembly.compile(b));
  const compiled = WebAssembly.compileStreaming
    ? WebAssembly.compileStreaming(fetch(wasmFile)).catch(bytes)
    : bytes();
  compiled.catch(() => { /* reported when the loader asks for it */ });
  Module.instantiateWasm = (imports, receive) => {
    compiled.then((m) => WebAssembly.instantiate(m, imports).then((instance) => receive(instance, m)))
      .catch((e) => fail('Could not load ' + wasmFile + ': ' + e.message));
    return {};  // asynchronous: Emscripten waits for receive()
  };
  const app = document.createElement('script');
  app.src = window.llmsizeModule;
  app.async = true;
  app.onerror = () => fail('Could not load ' + window.llmsizeModule + '.');
  document.body.append(app);

  window.llmsizeGlueMs = performance.now();
  canvas.focus();
})();
