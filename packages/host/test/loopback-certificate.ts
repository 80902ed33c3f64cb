import { createRequire } from 'node:module';

interface Forge {
  pki: {
    rsa: { generateKeyPair(bits: number): { publicKey: unknown; privateKey: unknown } };
    createCertificate(): {
      publicKey: unknown;
      serialNumber: string;
      validity: { notBefore: Date; notAfter: Date };
      setSubject(attrs: { name: string; value: string }[]): void;
      setIssuer(attrs: { name: string; value: string }[]): void;
      setExtensions(exts: Record<string, unknown>[]): void;
      sign(key: unknown, md: unknown): void;
    };
    certificateToPem(cert: unknown): string;
    privateKeyToPem(key: unknown): string;
  };
  md: { sha256: { create(): unknown } };
}

/**
 * A self-signed certificate for 127.0.0.1, for an https server on loopback that a test's
 * process (or a child given it as NODE_EXTRA_CA_CERTS) trusts: no system tool needed.
 */
export function loopbackCertificate(): { cert: string; key: string } {
  const forge = createRequire(import.meta.url)('node-forge') as Forge;
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  const subject = [{ name: 'commonName', value: '127.0.0.1' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}
