import { isPublicAddress } from '../src/domain/webhook-targets.js';
import { BlockList } from 'node:net';
for (const a of ['2606:4700::1111','8.8.8.8','2a00:1450:4001::1','::ffff:7f00:1', '2001:4860::1']) console.log(a, isPublicAddress(a));
const b = new BlockList(); b.addSubnet('2001::', 23, 'ipv6'); console.log(b.check('2606:4700:0:0:0:0:0:1111','ipv6'));
const c = new BlockList(); c.addSubnet('::', 96, 'ipv6'); console.log(c.check('2606:4700:0:0:0:0:0:1111','ipv6'), c.check('2606:4700::1111','ipv6'));
for (const a of ['10.0.0.1','127.0.0.1','::1','::','::7f00:1','::ffff:8.8.8.8','64:ff9b::808:808','64:ff9b::a00:1','2002:808:808::1','2002:a00:1::1','fe80::1%eth0','fd12::1','ff02::1', '93.184.215.14', '100.64.1.1','0.0.0.0','255.255.255.255', '2001:db8::1', '2001:0:1::1']) console.log(a, isPublicAddress(a));
