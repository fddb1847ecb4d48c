/* GPU Scaling Lab — optional embed helper for documentation sites.
 *
 * Include it once (it lives at <app>/public/embed.js) and write placeholders where widgets go:
 *
 *   <div data-gpu-scaling-lab-widget="speedup"
 *        data-scenario="gpus=64&gpu=h100&inter=tcp100&model=llama3-8b"
 *        data-theme="host" data-heading="0" data-title="Speedup on 100 GbE"></div>
 *   <script src="gpu-scaling-lab/public/embed.js" defer></script>
 *
 * It replaces each placeholder by a full-width iframe (allow="fullscreen", lazy) of the app next
 * to this script, sizes every GPU Scaling Lab iframe on the page to its content from the
 * `{type: "gpu-scaling-lab:height", widget, height}` messages the widgets post, and, with
 * data-theme="host", keeps each widget in the host page's light or dark theme as the reader
 * toggles it (Docusaurus, mdBook, MkDocs Material, or a `dark` class on <html> or <body>).
 *
 * Attributes: data-gpu-scaling-lab-widget (calculator, speedup, animation, timeline, lesson,
 * validation, topology, time-to-train),
 * data-scenario (the app's key=value string), data-lesson (for the lesson widget),
 * data-theme (auto: the reader's system, the default; light; dark; host), data-heading="0"
 * (hide the widget's own heading), data-height (initial height in px), data-title, data-base
 * (where the app is, if not next to this script). Nothing is fetched and nothing is stored.
 * window.GpuScalingLab.mount() mounts placeholders added later; .setTheme("dark") forces one.
 */
(function () {
  'use strict';
  var HEIGHT = 'gpu-scaling-lab:height';
  var SEL = '[data-gpu-scaling-lab-widget]';
  // Each widget's first height, near its content at a 700 px column (the widget then posts its
  // own); the validation widget is a summary and a chart, its rows folded.
  var HEIGHTS = {
    calculator: 720, speedup: 640, animation: 560, timeline: 380, lesson: 520,
    validation: 1400, topology: 840, 'time-to-train': 1040,
  };
  var script = document.currentScript;
  var defaultBase = script && script.src ? new URL('../', script.src).href : './';
  var forced = null;

  /** The host page's theme: 'dark', 'light', or 'auto' when it says nothing. */
  function hostTheme() {
    if (forced) return forced;
    var html = document.documentElement;
    var body = document.body;
    var dt = html.getAttribute('data-theme') || (body && body.getAttribute('data-theme'));
    if (dt === 'dark' || dt === 'light') return dt; // Docusaurus, many others
    var md = body && body.getAttribute('data-md-color-scheme');
    if (md) return md === 'slate' ? 'dark' : 'light'; // MkDocs Material
    var cls = html.classList;
    if (cls.contains('coal') || cls.contains('navy') || cls.contains('ayu')) return 'dark'; // mdBook
    if (cls.contains('light') || cls.contains('rust')) return 'light';
    if (cls.contains('dark') || (body && body.classList.contains('dark'))) return 'dark';
    return 'auto';
  }

  function hashFor(el, theme) {
    var parts = ['embed=' + el.getAttribute('data-gpu-scaling-lab-widget')];
    if (theme && theme !== 'auto') parts.push('theme=' + theme);
    if (el.getAttribute('data-heading') === '0') parts.push('heading=0');
    var lesson = el.getAttribute('data-lesson');
    if (lesson) parts.push('lesson=' + encodeURIComponent(lesson));
    var sc = (el.getAttribute('data-scenario') || '').replace(/^#/, '');
    if (sc) parts.push(sc);
    return parts.join('&');
  }

  function themeOf(el) {
    var t = el.getAttribute('data-theme') || 'auto';
    return t === 'host' ? hostTheme() : t;
  }

  /** Replaces one placeholder by its iframe. */
  function create(el) {
    var widget = el.getAttribute('data-gpu-scaling-lab-widget');
    var f = document.createElement('iframe');
    var base = el.getAttribute('data-base') || defaultBase;
    f.src = base + '#' + hashFor(el, themeOf(el));
    f.title = el.getAttribute('data-title') || 'GPU Scaling Lab: ' + widget;
    f.loading = 'lazy';
    f.setAttribute('allow', 'fullscreen');
    f.setAttribute('data-gpu-scaling-lab', '');
    f.setAttribute('data-gpu-scaling-lab-base', base);
    ['data-gpu-scaling-lab-widget', 'data-scenario', 'data-theme', 'data-heading', 'data-lesson'].forEach(function (a) {
      if (el.hasAttribute(a)) f.setAttribute(a, el.getAttribute(a));
    });
    f.style.width = '100%';
    f.style.border = '0';
    f.style.display = 'block';
    f.style.height = (Number(el.getAttribute('data-height')) || HEIGHTS[widget] || 600) + 'px';
    if (el.id) f.id = el.id;
    el.replaceWith(f);
    return f;
  }

  /** Mounts every placeholder under `root` (default: the whole page). */
  function mount(root) {
    var list = (root || document).querySelectorAll('div' + SEL + ', span' + SEL);
    for (var i = 0; i < list.length; i++) create(list[i]);
  }

  /** Moves every host-themed widget to the host's current theme, without reloading it. */
  function follow() {
    var frames = document.querySelectorAll('iframe' + SEL + '[data-theme="host"]');
    for (var i = 0; i < frames.length; i++) {
      var f = frames[i];
      var want = new URL(f.getAttribute('data-gpu-scaling-lab-base') + '#' + hashFor(f, hostTheme()), location.href).href;
      // A change of the fragment only: the widget follows it as a hashchange, no reload.
      if (f.src !== want) f.src = want;
    }
  }

  addEventListener('message', function (e) {
    var d = e.data;
    if (!d || d.type !== HEIGHT || typeof d.height !== 'number') return;
    var frames = document.querySelectorAll('iframe[data-gpu-scaling-lab]');
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === e.source) frames[i].style.height = Math.max(120, Math.ceil(d.height)) + 'px';
    }
  });

  function start() {
    mount();
    // Placeholders added later (single-page docs sites) and host theme toggles.
    new MutationObserver(function (records) {
      for (var i = 0; i < records.length; i++) {
        if (records[i].type === 'childList' && records[i].addedNodes.length) { mount(); break; }
      }
    }).observe(document.body, { childList: true, subtree: true });
    var themeWatch = new MutationObserver(follow);
    var opts = { attributes: true, attributeFilter: ['class', 'data-theme', 'data-md-color-scheme'] };
    themeWatch.observe(document.documentElement, opts);
    themeWatch.observe(document.body, opts);
  }

  window.GpuScalingLab = {
    mount: mount,
    hostTheme: hostTheme,
    /** Forces every host-themed widget to 'light' or 'dark'; null follows the page again. */
    setTheme: function (t) { forced = t === 'light' || t === 'dark' ? t : null; follow(); },
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
