// A small publish/subscribe hub with hierarchical topics and wildcards.
//
// Topics are dot-separated ("build.step.done"). A subscription pattern may use
// "*" for exactly one segment and "#" (last segment only) for any number of
// trailing segments: "build.*.done" and "build.#" both match "build.step.done".
//
//   const hub = new TopicHub();
//   const off = hub.on("build.#", (msg, topic) => console.log(topic, msg));
//   hub.publish("build.step.done", { ok: true });
//   off();

"use strict";

class TopicError extends Error {
  constructor(message) {
    super(message);
    this.name = "TopicError";
  }
}

function splitTopic(topic) {
  if (typeof topic !== "string" || topic.length === 0) {
    throw new TopicError("a topic must be a non-empty string");
  }
  const parts = topic.split(".");
  if (parts.some((p) => p.length === 0)) {
    throw new TopicError(`empty segment in topic "${topic}"`);
  }
  return parts;
}

function checkPattern(parts) {
  parts.forEach((part, i) => {
    if (part === "#" && i !== parts.length - 1) {
      throw new TopicError('"#" may only be the last segment of a pattern');
    }
  });
  return parts;
}

function matches(patternParts, topicParts) {
  for (let i = 0; i < patternParts.length; i += 1) {
    const want = patternParts[i];
    if (want === "#") {
      return true;
    }
    if (i >= topicParts.length) {
      return false;
    }
    if (want !== "*" && want !== topicParts[i]) {
      return false;
    }
  }
  return patternParts.length === topicParts.length;
}

class Subscription {
  constructor(hub, pattern, handler, options) {
    this.hub = hub;
    this.pattern = pattern;
    this.parts = checkPattern(splitTopic(pattern));
    this.handler = handler;
    this.once = Boolean(options.once);
    this.priority = options.priority || 0;
    this.active = true;
  }

  cancel() {
    if (this.active) {
      this.active = false;
      this.hub.remove(this);
    }
  }
}

class TopicHub {
  constructor(options = {}) {
    this.subscriptions = [];
    this.retained = new Map();
    this.onError = options.onError || ((error) => {
      throw error;
    });
    this.published = 0;
    this.delivered = 0;
  }

  // Subscribe; returns a function that cancels the subscription.
  on(pattern, handler, options = {}) {
    if (typeof handler !== "function") {
      throw new TopicError("a handler must be a function");
    }
    const sub = new Subscription(this, pattern, handler, options);
    this.subscriptions.push(sub);
    // Higher priority first; stable for equal priorities.
    this.subscriptions.sort((a, b) => b.priority - a.priority);
    if (options.replay) {
      for (const [topic, message] of this.retained) {
        if (sub.active && matches(sub.parts, splitTopic(topic))) {
          this.deliver(sub, message, topic);
        }
      }
    }
    return () => sub.cancel();
  }

  once(pattern, handler, options = {}) {
    return this.on(pattern, handler, { ...options, once: true });
  }

  remove(sub) {
    const index = this.subscriptions.indexOf(sub);
    if (index >= 0) {
      this.subscriptions.splice(index, 1);
    }
  }

  // Deliver a message to every matching subscriber; returns how many received it.
  publish(topic, message, options = {}) {
    const parts = splitTopic(topic);
    if (parts.includes("*") || parts.includes("#")) {
      throw new TopicError("wildcards are for subscriptions, not for published topics");
    }
    this.published += 1;
    if (options.retain) {
      this.retained.set(topic, message);
    }
    let count = 0;
    // Copy: handlers may subscribe or cancel while we deliver.
    for (const sub of [...this.subscriptions]) {
      if (sub.active && matches(sub.parts, parts)) {
        this.deliver(sub, message, topic);
        count += 1;
      }
    }
    return count;
  }

  deliver(sub, message, topic) {
    if (sub.once) {
      sub.cancel();
    }
    this.delivered += 1;
    try {
      sub.handler(message, topic);
    } catch (error) {
      this.onError(error, { topic, pattern: sub.pattern });
    }
  }

  // Resolve with the next message on a matching topic, or reject after timeoutMs.
  waitFor(pattern, timeoutMs = 0) {
    return new Promise((resolve, reject) => {
      let timer = null;
      const off = this.once(pattern, (message, topic) => {
        if (timer !== null) {
          clearTimeout(timer);
        }
        resolve({ message, topic });
      });
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          off();
          reject(new TopicError(`no message on "${pattern}" within ${timeoutMs} ms`));
        }, timeoutMs);
      }
    });
  }

  clearRetained(pattern = "#") {
    const parts = checkPattern(splitTopic(pattern));
    for (const topic of [...this.retained.keys()]) {
      if (matches(parts, splitTopic(topic))) {
        this.retained.delete(topic);
      }
    }
  }

  patterns() {
    return this.subscriptions.map((sub) => sub.pattern);
  }

  stats() {
    return {
      subscriptions: this.subscriptions.length,
      retained: this.retained.size,
      published: this.published,
      delivered: this.delivered,
    };
  }
}

// Call fn at most once per waitMs; the last call in a burst still runs (trailing edge).
function throttle(fn, waitMs) {
  let last = 0;
  let pending = null;
  let pendingArgs = null;
  return function throttled(...args) {
    const now = Date.now();
    const remaining = waitMs - (now - last);
    if (remaining <= 0) {
      last = now;
      fn.apply(this, args);
      return;
    }
    pendingArgs = args;
    if (pending === null) {
      pending = setTimeout(() => {
        pending = null;
        last = Date.now();
        fn.apply(this, pendingArgs);
      }, remaining);
    }
  };
}

module.exports = { TopicHub, TopicError, matches, splitTopic, throttle };
