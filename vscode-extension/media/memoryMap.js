// The memory map webview's only script (loaded under the page's nonce): a hover box with a
// buffer's details, a click (or Enter) on a buffer or a function title reveals its source (and
// pins the buffer), a click on a toggle asks the panel to redraw with it.
(function () {
  const vscode = acquireVsCodeApi();
  const tip = document.getElementById('tip');

  function target(event) {
    return event.target instanceof Element ? event.target.closest('[data-reveal]') : null;
  }

  function showTip(element, x, y) {
    const text = element.getAttribute('data-tip');
    if (!tip || !text) {
      return;
    }
    tip.textContent = text;
    tip.style.display = 'block';
    const room = window.innerWidth - tip.offsetWidth - 8;
    tip.style.left = `${Math.max(0, Math.min(x + 12, room))}px`;
    tip.style.top = `${y + 16}px`;
  }

  function hideTip() {
    if (tip) {
      tip.style.display = 'none';
    }
  }

  // A buffer also names itself (data-pin): the panel pins it, or unpins it when it was.
  function reveal(element) {
    const pin = element.getAttribute('data-pin');
    vscode.postMessage({ command: 'reveal', range: element.getAttribute('data-reveal'), ...(pin ? { pin } : {}) });
  }

  // The scale and space toggles: the panel redraws the page with the new choice.
  function toggle(element) {
    vscode.postMessage({ command: 'view', view: element.getAttribute('data-view'), value: element.getAttribute('data-value') });
  }

  // The picture is drawn for the panel's width: say it now and after every resize.
  let lastWidth = 0;
  let resizeTimer;
  function reportWidth() {
    const width = document.documentElement.clientWidth;
    if (width !== lastWidth) {
      lastWidth = width;
      vscode.postMessage({ command: 'width', width });
    }
  }
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(reportWidth, 150);
  });
  reportWidth();

  document.addEventListener('mousemove', (event) => {
    const element = target(event);
    if (element && element.hasAttribute('data-tip')) {
      showTip(element, event.clientX, event.clientY);
    } else {
      hideTip();
    }
  });
  document.addEventListener('mouseleave', hideTip);
  document.addEventListener('focusin', (event) => {
    const element = target(event);
    if (element && element.hasAttribute('data-tip')) {
      const box = element.getBoundingClientRect();
      showTip(element, box.left, box.bottom - 16);
    }
  });
  document.addEventListener('focusout', hideTip);
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-view]') : null;
    if (button) {
      toggle(button);
      return;
    }
    const element = target(event);
    if (element) {
      reveal(element);
    }
  });
  document.addEventListener('keydown', (event) => {
    const element = target(event);
    if (element && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      reveal(element);
    }
  });
})();
