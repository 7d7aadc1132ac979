import { chooseProtocol, offeredProtocols } from './remote-command.js';

describe('the subprotocol of an exec WebSocket', () => {
  test('v5 when offered, whatever the order, else v4, else none', () => {
    expect(chooseProtocol(offeredProtocols('v4.channel.k8s.io, v5.channel.k8s.io'))).toBe('v5.channel.k8s.io');
    expect(chooseProtocol(offeredProtocols('channel.k8s.io,v4.channel.k8s.io'))).toBe('v4.channel.k8s.io');
    expect(chooseProtocol(offeredProtocols('base64.channel.k8s.io, channel.k8s.io'))).toBeUndefined();
    expect(chooseProtocol(offeredProtocols(undefined))).toBeUndefined();
  });
});
