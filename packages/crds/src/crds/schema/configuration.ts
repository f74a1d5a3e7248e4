/**
 * HostedCluster `spec.configuration`: embedded openshift/api config.openshift.io/v1 specs. Every field
 * that references a Secret or ConfigMap (by name, in the HostedCluster's namespace) is declared with its
 * exact shape, because hcc's syncer copies those objects. Each config block also keeps fields this
 * schema does not list (`x-kubernetes-preserve-unknown-fields`): the openshift/api types grow with every
 * OCP release, and the operator validates them (ValidConfiguration condition).
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_types.go (ClusterConfiguration)
 * @see https://github.com/openshift/api/tree/master/config/v1
 */
import type { JSONSchemaProps } from '../crd-types.js';
import { arr, bool, cel, enumOf, int32, nameReference, obj, str } from './builders.js';

/** A config block: declared properties plus preserved unknown fields. */
const block = (description: string, properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  description,
  properties,
  'x-kubernetes-preserve-unknown-fields': true,
  ...extra,
});

const secretRef = (what: string) => nameReference(`${what}: a Secret in the HostedCluster namespace.`);
const configMapRef = (what: string) => nameReference(`${what}: a ConfigMap in the HostedCluster namespace.`);

/** configv1.APIServerSpec. */
const apiServer = block('apiServer holds configuration shared by all API servers (serving certificates, client CA, ...).', {
  additionalCORSAllowedOrigins: arr(str()),
  audit: block('audit configures the audit policy profile.', {
    profile: enumOf(['Default', 'WriteRequestBodies', 'AllRequestBodies', 'None'], { default: 'Default' }),
    customRules: arr(
      obj(
        { group: str({ minLength: 1 }), profile: enumOf(['Default', 'WriteRequestBodies', 'AllRequestBodies', 'None']) },
        { required: ['group', 'profile'] },
      ),
      { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['group'] },
    ),
  }),
  clientCA: configMapRef('clientCA (key ca-bundle.crt)'),
  encryption: block('encryption configures encryption of resources at the datastore layer.', {
    type: enumOf(['', 'identity', 'aescbc', 'aesgcm']),
  }),
  servingCerts: obj({
    namedCertificates: arr(
      obj({
        names: arr(str()),
        servingCertificate: secretRef('servingCertificate (kubernetes.io/tls)'),
      }),
    ),
  }),
  tlsSecurityProfile: block('tlsSecurityProfile specifies TLS settings for externally exposed servers.', {
    type: enumOf(['Old', 'Intermediate', 'Modern', 'Custom']),
  }),
});

/** configv1.AuthenticationSpec. */
const authentication = block('authentication specifies cluster-wide authentication settings (OAuth, OIDC, webhook).', {
  type: enumOf(['', 'None', 'IntegratedOAuth', 'OIDC']),
  oauthMetadata: configMapRef('oauthMetadata (key oauthMetadata)'),
  serviceAccountIssuer: str(),
  webhookTokenAuthenticator: obj({ kubeConfig: secretRef('kubeConfig (key kubeConfig)') }, { required: ['kubeConfig'] }),
  webhookTokenAuthenticators: arr(block('Deprecated, has no effect.', {}), { 'x-kubernetes-list-type': 'atomic' }),
  oidcProviders: arr(
    block(
      'An external OIDC identity provider.',
      {
        name: str({ minLength: 1 }),
        issuer: block(
          'issuer describes the OIDC token issuer.',
          {
            issuerURL: str({ pattern: '^https:\\/\\/[^\\s]' }),
            audiences: arr(str({ minLength: 1 }), { minItems: 1, maxItems: 10, 'x-kubernetes-list-type': 'set' }),
            issuerCertificateAuthority: configMapRef('issuerCertificateAuthority (key ca-bundle.crt)'),
          },
          { required: ['audiences', 'issuerURL'] },
        ),
        oidcClients: arr(
          block(
            'A platform client that requests tokens from the issuer.',
            {
              clientID: str({ minLength: 1 }),
              clientSecret: secretRef('clientSecret (key clientSecret)'),
              componentName: str({ minLength: 1, maxLength: 256 }),
              componentNamespace: str({ minLength: 1, maxLength: 63 }),
              extraScopes: arr(str(), { 'x-kubernetes-list-type': 'set' }),
            },
            { required: ['clientID', 'componentName', 'componentNamespace'] },
          ),
          { maxItems: 20, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['componentNamespace', 'componentName'] },
        ),
      },
      { required: ['issuer', 'name'] },
    ),
    { maxItems: 1, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
  ),
});

/** A CA (ConfigMap, key ca.crt) plus TLS client certificate and key (Secrets), as several IdPs carry. */
const tlsIdentityProvider = (description: string, extra: Record<string, JSONSchemaProps>) =>
  block(description, {
    ca: configMapRef('ca (key ca.crt)'),
    tlsClientCert: secretRef('tlsClientCert (key tls.crt)'),
    tlsClientKey: secretRef('tlsClientKey (key tls.key)'),
    url: str(),
    ...extra,
  });

/** configv1.IdentityProvider. */
const identityProvider = block('identityProvider provides identities for users authenticating with credentials.', {
  name: str(),
  mappingMethod: str({ description: 'claim (default), lookup, generate or add.' }),
  type: str({ description: 'BasicAuth, GitHub, GitLab, Google, HTPasswd, Keystone, LDAP, OpenID or RequestHeader.' }),
  basicAuth: tlsIdentityProvider('basicAuth identity provider.', {}),
  github: block('github identity provider.', {
    ca: configMapRef('ca (key ca.crt)'),
    clientID: str(),
    clientSecret: secretRef('clientSecret (key clientSecret)'),
    hostname: str(),
    organizations: arr(str()),
    teams: arr(str()),
  }),
  gitlab: block('gitlab identity provider.', {
    ca: configMapRef('ca (key ca.crt)'),
    clientID: str(),
    clientSecret: secretRef('clientSecret (key clientSecret)'),
    url: str(),
  }),
  google: block('google identity provider.', {
    clientID: str(),
    clientSecret: secretRef('clientSecret (key clientSecret)'),
    hostedDomain: str(),
  }),
  htpasswd: block('htpasswd identity provider.', { fileData: secretRef('fileData (key htpasswd)') }),
  keystone: tlsIdentityProvider('keystone identity provider.', { domainName: str() }),
  ldap: block('ldap identity provider.', {
    attributes: block('attributes maps LDAP attributes to identities.', {}),
    bindDN: str(),
    bindPassword: secretRef('bindPassword (key bindPassword)'),
    ca: configMapRef('ca (key ca.crt)'),
    insecure: bool(),
    url: str(),
  }),
  openID: block('openID identity provider.', {
    ca: configMapRef('ca (key ca.crt)'),
    claims: block('claims mappings.', {}),
    clientID: str(),
    clientSecret: secretRef('clientSecret (key clientSecret)'),
    extraAuthorizeParameters: { type: 'object', additionalProperties: { type: 'string' } },
    extraScopes: arr(str()),
    issuer: str(),
  }),
  requestHeader: block('requestHeader identity provider.', {
    ca: configMapRef('ca (key ca.crt)'),
    challengeURL: str(),
    loginURL: str(),
    clientCommonNames: arr(str()),
    headers: arr(str()),
    emailHeaders: arr(str()),
    nameHeaders: arr(str()),
    preferredUsernameHeaders: arr(str()),
  }),
});

/** configv1.OAuthSpec. */
const oauth = block(
  'oauth configures the integrated OAuth server (only honored when authentication type is IntegratedOAuth).',
  {
    identityProviders: arr(identityProvider, { 'x-kubernetes-list-type': 'atomic' }),
    templates: obj({
      error: secretRef('error template (key errors.html)'),
      login: secretRef('login template (key login.html)'),
      providerSelection: secretRef('providerSelection template (key providers.html)'),
    }),
    tokenConfig: obj({
      accessTokenInactivityTimeout: str(),
      accessTokenInactivityTimeoutSeconds: int32(),
      accessTokenMaxAgeSeconds: int32(),
    }),
  },
  {
    'x-kubernetes-validations': [
      cel(
        '!has(self.tokenConfig) || !has(self.tokenConfig.accessTokenInactivityTimeout) || duration(self.tokenConfig.accessTokenInactivityTimeout).getSeconds() >= 300',
        'spec.configuration.oauth.tokenConfig.accessTokenInactivityTimeout minimum acceptable token timeout value is 300 seconds',
      ),
    ],
  },
);

/** hyperv1.ClusterConfiguration (`spec.configuration`). */
export const configurationSchema: JSONSchemaProps = obj(
  {
    apiServer,
    authentication,
    featureGate: block('featureGate holds cluster-wide feature gates.', {
      featureSet: str(),
      customNoUpgrade: block('customNoUpgrade enables or disables individual gates (featureSet CustomNoUpgrade).', {
        enabled: arr(str()),
        disabled: arr(str()),
      }),
    }),
    image: block('image governs image import and registry policies.', {
      additionalTrustedCA: configMapRef('additionalTrustedCA (one key per registry host)'),
      allowedRegistriesForImport: arr(block('RegistryLocation.', {})),
      externalRegistryHostnames: arr(str()),
      registrySources: block('registrySources configures how the container runtime treats registries.', {}),
    }),
    ingress: block('ingress holds cluster-wide ingress configuration (default domain, component routes).', {
      appsDomain: str(),
      domain: str(),
      componentRoutes: arr(
        block('A route managed by an OpenShift component.', {
          hostname: str(),
          name: str({ minLength: 1, maxLength: 256 }),
          namespace: str({ minLength: 1, maxLength: 63 }),
          servingCertKeyPairSecret: secretRef('servingCertKeyPairSecret (kubernetes.io/tls)'),
        }),
      ),
      loadBalancer: block('loadBalancer holds platform-specific load balancer settings.', {}),
      requiredHSTSPolicies: arr(block('RequiredHSTSPolicy.', {})),
    }),
    network: block('network holds cluster-wide network configuration.', {}),
    oauth,
    operatorhub: block('operatorhub configures the default OLM catalog sources.', {
      disableAllDefaultSources: bool(),
      sources: arr(obj({ name: str({ minLength: 1, maxLength: 253 }), disabled: bool() })),
    }),
    scheduler: block('scheduler holds cluster-wide scheduler configuration.', {
      defaultNodeSelector: str(),
      mastersSchedulable: bool(),
      policy: configMapRef('policy (deprecated scheduler policy)'),
      profile: enumOf(['', 'LowNodeUtilization', 'HighNodeUtilization', 'NoScoring']),
    }),
    proxy: block('proxy configures the cluster-wide egress proxy for the data plane.', {
      httpProxy: str(),
      httpsProxy: str(),
      noProxy: str(),
      readinessEndpoints: arr(str()),
      trustedCA: configMapRef('trustedCA (key ca-bundle.crt)'),
    }),
  },
  { description: 'configuration specifies configuration for individual OCP components, as openshift config API specs.' },
);
