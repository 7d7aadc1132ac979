import { chooseProtocol, offeredProtocols, terminalSizes } from './remote-command.js';

describe('the subprotocol of an exec WebSocket', () => {
  test('v5 when offered, whatever the order, else v4, else none', () => {
    expect(chooseProtocol(offeredProtocols('v4.channel.k8s.io, v5.channel.k8s.io'))).toBe('v5.channel.k8s.io');
    expect(chooseProtocol(offeredProtocols('channel.k8s.io,v4.channel.k8s.io'))).toBe('v4.channel.k8s.io');
    expect(chooseProtocol(offeredProtocols('base64.channel.k8s.io, channel.k8s.io'))).toBeUndefined();
    expect(chooseProtocol(offeredProtocols(undefined))).toBeUndefined();
  });
});

describe('the sizes of a resize frame', () => {
  test.each([
    ['client-go: an encoder line', '{"Width":80,"Height":24}\n', [{ width: 80, height: 24 }]],
    ['client-node: lower case, no newline', '{"height":17,"width":91}', [{ width: 91, height: 17 }]],
    ['two sizes in one frame, the later last', '{"Width":80,"Height":24}\n{"Width":100,"Height":30}\n', [{ width: 80, height: 24 }, { width: 100, height: 30 }]],
    ['not JSON', 'resize me', []],
    ['past uint16', '{"Width":70000,"Height":24}', []],
    ['a field missing', '{"Width":80}', []],
  ])('%s', (_, frame, sizes) => {
    expect(terminalSizes(frame)).toEqual(sizes);
  });
});
