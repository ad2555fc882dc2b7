// PUBLIC TEST KEY — NOT A SECRET. An RSA-2048 key pair generated once with
// node:crypto for this repository and published on purpose: the control host
// signs the tokens of /jwt with it and publishes its public half in
// /.well-known/jwks.json, and the chaos host's alg-confusion token is an HS256
// MAC keyed with the public PEM below. Anyone can forge tokens with it; never
// trust it anywhere but against this service.

/** PKCS#8 private key (test key, published on purpose). */
export const TEST_RSA_PRIVATE_KEY_PEM =
  '-----BEGIN PRIVATE KEY-----\n' +
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCszCRNHhz/B6U6\n' +
  'iBXAp4A+24PmvYwly0vp/BKuVRud6BX4VAR24CnqAsE4jq047ACe6ztaYESlPWHa\n' +
  'H7NmCj1wnSeLFEauc2SrZLhSjJWv8VfZLeObeL1aTAvnn0kwq48cQ6l6atdV8knt\n' +
  'j9fx/G3A7A3y/O3YEIr9B9Rpq6T5ASAr3wYNDx8Aawy3r7socpAhNhflMP+9OM9k\n' +
  'zzXa8ERGsLFiyiHMoNXJmR3DZhdku6zk+sLRwD4DS4AKeAFgLFhLmdK6e2ZWtXnW\n' +
  'rn8K7WD/QOdntm9Pp0lnh8A78Tsllf1udb32Nmp/LZRjdVvT2/H6arfcf5kthZ1k\n' +
  'v6Twe4ArAgMBAAECggEADKudX9A89RBU88FFww4lL7a96b3tWFobU2lp30GbWE1L\n' +
  'yx0yBJt0R1XzYBfKKNnZQ83g2MQlVG53Tdy0NV+72JWVcDPI6QLKF203vMnVMgUC\n' +
  '2YhtX5mPXN8lolLCNaDmyf5GH5VU+9bbx+EbxwEo9RP6A966+/RelKYt05/D5YQq\n' +
  'M2F+ko6Wbf8AQd/wGN3/LT2oefLZe+mmZ6tRU7B907jeWgFmRXUbDnRXzWuWN3r7\n' +
  '7fwp72/imWiao6vhAc3X+nCFvYLx4I6FxbsX0hlPNJ046eT+TZPWNrcCz3w/3SVE\n' +
  'nIJTFx6iNHXIWWEpdSj1TVxfoUjoG55Nl5S4WgLs/QKBgQDg4BF9jXzGU+99r7W+\n' +
  '2XQieWLO2cBB27kr4UoyLJ9fcS2fjkOpwF+A8J0TlVPbYmawr9yjmHmFFhhI66Bj\n' +
  'i17zKrB60SCPHPieomaDGIYOW3AroSU+d6G2BzwPM7mHaLTlTxZH+ISNaX3tIUmm\n' +
  'FP1aUPAA07UXTOeEMUMB7IkiRwKBgQDEttEGZ5cx4xcnUQ5B1tweX61DlB6nF81z\n' +
  '3w5gj4+YMMHLOXZ/x6x2FhfcYN9Mfkkwrq4YNorUPVZfWl+BMAoA/PqzWgQQ61pW\n' +
  'mJLNZz/bxFC3/LJecO601BIuyBMV3vdtou6mypg/vXD2R39UWMBBgPTXmhbaLMZq\n' +
  'Ext4whZg/QKBgH3i8eenXUJpmphx1PySH0FtUrMZk1dK+c5mwHJ2KIH1ieTYb2iI\n' +
  'GO7FxClCXz9hRruCt7Gdmem3BMFNpuwTCYR3UXRvvhpfzY6Au4KIKAPBjHngLElc\n' +
  'D1snkaew/RugsiPssjx4EzxW4fftup0PAwWcab8MxUPV+YU3Tpu1Hs/hAoGBAJ6R\n' +
  'L1UWU84m3BcZQ4DXDYB+Z1A+KadPjJGGkDROBNYNF2oV2+uMrPxTOtCuVdF3StAv\n' +
  'Pq7N6ILFHsamNq4QZz/8rKm+OeDZlmyPeGaSf+tLCDYHQFDYf9LL0AxdwuSyYojB\n' +
  '+dYBIVDgCBq972myUOd8Z+ETmLAtv5Lp7A8fhKKRAoGAGkQORGmDwasYVcLpuZ3b\n' +
  'BDy4qZ1nPkjd7NX//qZhhm7GnDiIsVDJNsf7ZUA0Kj/6BPW65klPMka8tpoOcbfE\n' +
  'g23UmErHDyUs7ArhbmYgPY0G8m5NgxhLeWU4eMng9E5pElf/gRm/YfV12ejBTJeM\n' +
  '0P9rOtmMtTAK4L7SJnbwdBo=\n' +
  '-----END PRIVATE KEY-----\n';

/** SPKI public key, exactly these bytes (the alg-confusion MAC key). */
export const TEST_RSA_PUBLIC_KEY_PEM =
  '-----BEGIN PUBLIC KEY-----\n' +
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEArMwkTR4c/welOogVwKeA\n' +
  'PtuD5r2MJctL6fwSrlUbnegV+FQEduAp6gLBOI6tOOwAnus7WmBEpT1h2h+zZgo9\n' +
  'cJ0nixRGrnNkq2S4UoyVr/FX2S3jm3i9WkwL559JMKuPHEOpemrXVfJJ7Y/X8fxt\n' +
  'wOwN8vzt2BCK/QfUaauk+QEgK98GDQ8fAGsMt6+7KHKQITYX5TD/vTjPZM812vBE\n' +
  'RrCxYsohzKDVyZkdw2YXZLus5PrC0cA+A0uACngBYCxYS5nSuntmVrV51q5/Cu1g\n' +
  '/0DnZ7ZvT6dJZ4fAO/E7JZX9bnW99jZqfy2UY3Vb09vx+mq33H+ZLYWdZL+k8HuA\n' +
  'KwIDAQAB\n' +
  '-----END PUBLIC KEY-----\n';
