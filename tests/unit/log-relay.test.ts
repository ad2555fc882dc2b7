// LogRelay (shared/store/log-relay.ts): the store a service is given keeps
// every operation, but once relaying its log appends go to the other side,
// which appends them to its own store; messages are recognised by shape.
import t from 'tap';
import { MemoryStore } from '../../shared/store/memory.js';
import { isLogAppend, isRelayRequest, LogRelay, RELAY_LOG_APPENDS, type LogAppend } from '../../shared/store/log-relay.js';

t.test('appends stay local until relayTo, then reach the other side\'s store; the rest is the store itself', async (t) => {
  const chaosStore = new MemoryStore();
  const controlStore = new MemoryStore();
  t.teardown(() => Promise.all([chaosStore.close(), controlStore.close()]));
  const chaos = new LogRelay();
  const control = new LogRelay();
  const seenByChaos = chaos.wrap(chaosStore);
  control.wrap(controlStore);
  await controlStore.openLog('exam:a', 'head', 60_000, 'client', 5);
  await chaosStore.openLog('exam:a', 'head', 60_000, 'client', 5);

  t.equal(await seenByChaos.appendLog('exam:a', 'local', 10), true, 'not relaying: appended to its own store');
  t.same((await chaosStore.readLog('exam:a'))?.entries, ['local']);

  const sent: LogAppend[] = [];
  chaos.relayTo((append) => {
    sent.push(append);
    control.receive(append);
  });
  t.equal(await seenByChaos.appendLog('exam:a', 'relayed', 10), true);
  await new Promise((resolve) => setImmediate(resolve));
  t.same(sent, [{ type: 'log-append', key: 'exam:a', entry: 'relayed', maxEntries: 10 }]);
  t.same((await controlStore.readLog('exam:a'))?.entries, ['relayed'], 'in the other side\'s store');
  t.same((await chaosStore.readLog('exam:a'))?.entries, ['local'], 'not in its own');
  chaos.receive({ type: 'log-append', key: 'exam:a', entry: 'received', maxEntries: 10 });
  await new Promise((resolve) => setImmediate(resolve));
  t.same((await chaosStore.readLog('exam:a'))?.entries, ['local', 'received'], 'a relaying side keeps what it receives');
  t.equal(sent.length, 1, 'and does not send it on');

  // Every other operation runs on the store itself (its private fields included).
  t.equal(await seenByChaos.countInWindow('k', 1000), 1);
  t.equal(await seenByChaos.countInWindow('k', 1000), 2);
  t.ok(seenByChaos instanceof MemoryStore, 'still a MemoryStore to whoever asks');
  t.equal(seenByChaos, chaosStore, 'the store itself: no indirection in front of its other operations (the pipeline makes one on every request)');
  t.equal(seenByChaos.countInWindow, MemoryStore.prototype.countInWindow, 'its own methods, as its class has them');
  control.receive({ type: 'log-append', key: 'exam:unknown', entry: 'x', maxEntries: 10 });
  t.equal(await controlStore.readLog('exam:unknown'), undefined, 'an append for a log this side does not hold is dropped');
});

t.test('the IPC messages are recognised by shape only', async (t) => {
  t.ok(isRelayRequest(RELAY_LOG_APPENDS));
  t.notOk(isRelayRequest({ type: 'ready' }));
  t.notOk(isRelayRequest(null));
  t.ok(isLogAppend({ type: 'log-append', key: 'k', entry: 'e', maxEntries: 3 }));
  t.notOk(isLogAppend({ type: 'log-append', key: 'k', entry: 'e' }), 'no maxEntries');
  t.notOk(isLogAppend({ type: 'log-append', key: 1, entry: 'e', maxEntries: 3 }));
  t.notOk(isLogAppend('log-append'));
});
