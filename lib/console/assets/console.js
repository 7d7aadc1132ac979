/* global document, window, EventSource, URL, history */
// The console page's only script: live updates over server-sent events, step selection, local
// times. The server renders (and escapes) every piece of HTML; this file swaps the pieces in and
// recolours the graph, so the page works, minus the live part, without it.
'use strict';

(function () {
  const LABELS = {
    succeeded: 'succeeded',
    failed: 'failed',
    caught: 'caught error',
    'in-progress': 'in progress',
    'not-run': 'not run',
    cancelled: 'cancelled',
  };
  const STATUSES = Object.keys(LABELS);

  function localTimes(root) {
    root.querySelectorAll('time[datetime]').forEach(function (el) {
      const date = new Date(el.getAttribute('datetime'));
      if (Number.isNaN(date.getTime())) return;
      const pad = function (n, w) { return String(n).padStart(w || 2, '0'); };
      const clock = pad(date.getHours()) + ':' + pad(date.getMinutes()) + ':' + pad(date.getSeconds()) + '.' + pad(date.getMilliseconds(), 3);
      el.textContent = el.dataset.format === 'time'
        ? clock
        : date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + ' ' + clock;
      el.title = date.toString();
    });
  }

  function setStatusClass(el, status) {
    STATUSES.forEach(function (s) { el.classList.remove('status-' + s); });
    el.classList.add('status-' + status);
  }

  /** Swaps server-rendered regions in, keeping keyboard focus on the step that had it. */
  function swapRegions(fragments) {
    const active = document.activeElement;
    const focusedStep = active && active.dataset ? active.dataset.step : undefined;
    const focusedIn = active && active.closest ? active.closest('[id^="x-"]') : null;
    Object.keys(fragments).forEach(function (id) {
      const el = document.getElementById(id);
      if (el && el.innerHTML !== fragments[id]) el.innerHTML = fragments[id];
    });
    if (focusedStep !== undefined && focusedIn) {
      const again = document.querySelector('#' + focusedIn.id + ' [data-step="' + focusedStep + '"]');
      if (again) again.focus();
    }
    localTimes(document);
  }

  // Beyond loopback the server asks for the webhook secret (401); it is asked for once per tab.
  const SECRET_KEY = 'step-runner-secret';

  function post(href, retried, body) {
    const headers = {};
    const secret = window.sessionStorage.getItem(SECRET_KEY);
    if (secret) headers.authorization = 'Bearer ' + secret;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return window.fetch(href, { method: 'POST', headers: headers, body: body }).then(function (response) {
      return response.json().then(function (body) {
        if (response.status === 401 && !retried) {
          const given = window.prompt('This server listens beyond this machine. Its webhook secret, to continue:');
          if (given) {
            window.sessionStorage.setItem(SECRET_KEY, given);
            return post(href, true, body);
          }
        }
        return { ok: response.ok, body: body };
      });
    });
  }

  /** Stop (after a confirmation) or New execution, as the console's buttons. */
  function control(button) {
    if (button.dataset.confirm && !window.confirm(button.dataset.confirm)) return;
    // Approve or reject: the step, and a comment (cancelled: nothing is sent).
    let body;
    if (button.dataset.step) {
      const comment = window.prompt(button.dataset.comment, '');
      if (comment === null) return;
      body = JSON.stringify(comment ? { step: button.dataset.step, comment: comment } : { step: button.dataset.step });
    }
    const problem = document.getElementById('x-action-error');
    problem.hidden = true;
    button.disabled = true;
    post(button.dataset.href, false, body)
      .then(function (answer) {
        if (!answer.ok) throw new Error(answer.body.error + ': ' + answer.body.message);
        if (button.dataset.action === 'rerun') window.location.assign('/executions/' + encodeURIComponent(answer.body.executionName));
        // Running again: a fresh load follows it live.
        else if (button.dataset.action === 'redrive') window.location.reload();
        // The server sends the end on the live stream before it answers; only a page without
        // one needs a reload to show it.
        else if (!document.querySelector('.execution-page[data-live]')) window.location.reload();
      })
      .catch(function (error) {
        button.disabled = false;
        problem.textContent = error.message;
        problem.hidden = false;
      });
  }

  function executionPage(page) {
    const modelEl = document.getElementById('x-model');
    let model = modelEl ? JSON.parse(modelEl.textContent) : null;
    const fromUrl = new URL(window.location.href).searchParams.get('step');
    // The reader's choice wins over the default (the failed step, else the running one). It is
    // an iteration's index, or "skipped-N" for a step its `when` left out (no iteration).
    let chosen = fromUrl !== null && fromUrl !== '' ? fromUrl : null;

    function selected() {
      if (!model || chosen === null) return model ? model.defaultStep : null;
      if ((model.skipped || []).some(function (s) { return s.key === chosen; })) return chosen;
      const index = /^\d+$/.test(chosen) ? Number(chosen) : NaN;
      const known = model.steps.some(function (s) { return s.index === index; });
      return known ? index : model.defaultStep;
    }

    function apply() {
      if (!model) return;
      const index = selected();
      const key = index === null ? '' : String(index);
      const iteration = model.states.iterations.find(function (it) { return it.index === index; });
      document.querySelectorAll('g.node.state').forEach(function (node) {
        const scope = node.dataset.scope;
        const runs = scope ? (iteration ? iteration.states : {}) : model.states.top;
        const run = runs[node.dataset.state];
        const status = run ? run.status : 'not-run';
        setStatusClass(node, status);
        const sub = node.querySelector('text.sub');
        if (sub) sub.textContent = [node.dataset.type, LABELS[status], run && run.visits > 1 ? run.visits + '×' : ''].filter(Boolean).join(' · ');
      });
      document.querySelectorAll('#x-steps [data-step], #x-pipeline [data-step]').forEach(function (link) {
        if (link.dataset.step === key) link.setAttribute('aria-current', 'true');
        else link.removeAttribute('aria-current');
      });
      document.querySelectorAll('[data-step-detail]').forEach(function (panel) {
        panel.hidden = panel.dataset.stepDetail !== key;
      });
      const caption = document.getElementById('x-graph-caption');
      const step = model.steps.find(function (s) { return s.index === index; });
      const skipped = (model.skipped || []).find(function (s) { return s.key === index; });
      if (caption) {
        caption.textContent = step
          ? 'Inside RunSteps: iteration ' + (step.index + 1) + ' of ' + model.steps.length + ', step ' + step.name
          : skipped
            ? 'Inside RunSteps: step ' + skipped.name + ' was skipped, so it has no iteration'
            : 'Inside RunSteps: no iteration yet';
      }
      page.dataset.selected = key;
    }

    // The pipeline's steps, or the state machine: the choice is kept in the address (?view=states).
    function showView(view) {
      const known = view === 'states' ? 'states' : 'pipeline';
      document.querySelectorAll('[data-graph-view]').forEach(function (el) { el.hidden = el.dataset.graphView !== known; });
      document.querySelectorAll('button[data-view]').forEach(function (b) { b.setAttribute('aria-pressed', String(b.dataset.view === known)); });
    }

    function address(name, value) {
      const url = new URL(window.location.href);
      if (value === null) url.searchParams.delete(name);
      else url.searchParams.set(name, value);
      history.replaceState(null, '', url.search || url.pathname);
    }

    // Links keep working without the script (?step=N); with it, no reload.
    page.addEventListener('click', function (event) {
      const button = event.target.closest('button[data-action]');
      if (button) return control(button);
      const toggle = event.target.closest('button[data-view]');
      if (toggle) {
        showView(toggle.dataset.view);
        return address('view', toggle.dataset.view === 'states' ? 'states' : null);
      }
      const link = event.target.closest('a[data-step]');
      if (!link || event.metaKey || event.ctrlKey || event.shiftKey) return;
      event.preventDefault();
      chosen = link.dataset.step;
      address('step', chosen);
      apply();
      const detail = document.querySelector('[data-step-detail="' + chosen + '"]');
      if (detail && link.closest('#x-banner')) detail.scrollIntoView({ block: 'nearest' });
    });

    showView(new URL(window.location.href).searchParams.get('view'));
    apply();
    localTimes(document);
    if (!model || model.status !== 'RUNNING') return;
    const source = new EventSource(page.dataset.stream);
    source.addEventListener('update', function (event) {
      const update = JSON.parse(event.data);
      model = update.model;
      swapRegions(update.fragments);
      apply();
    });
    source.addEventListener('end', function () {
      source.close();
      page.dataset.live = 'ended';
    });
    page.dataset.live = 'on';
  }

  function listPage(page) {
    localTimes(document);
    const source = new EventSource(page.dataset.stream);
    source.addEventListener('update', function (event) {
      swapRegions(JSON.parse(event.data).fragments);
    });
    page.dataset.live = 'on';
  }

  const execution = document.querySelector('.execution-page');
  if (execution) executionPage(execution);
  const list = document.querySelector('.list-page');
  if (list) listPage(list);
})();
