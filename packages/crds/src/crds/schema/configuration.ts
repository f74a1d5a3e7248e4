/**
 * HostedCluster `spec.configuration`: embedded openshift/api config.openshift.io/v1 specs. Every field
 * that references a Secret or ConfigMap (by name, in the HostedCluster's namespace) is declared with its
 * exact shape, because hcc's syncer copies those objects. `oauth` is declared whole, as upstream's CRD
 * does (an unknown field there is refused or pruned); the other config blocks also keep fields this
 * schema does not list (`x-kubernetes-preserve-unknown-fields`): those openshift/api types grow with
 * every OCP release, and the operator validates them (ValidConfiguration condition).
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_types.go (ClusterConfiguration)
 * @see https://github.com/openshift/api/tree/master/config/v1
 */
import type { JSONSchemaProps } from '../crd-types.js';
import { arr, bool, cel, enumOf, int32, nameReference, obj, str, stringMap } from './builders.js';

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

/**
 * configv1.OAuthRemoteConnectionInfo: the remote URL, a CA (ConfigMap, key ca.crt) and a TLS client
 * certificate and key (Secrets), as the BasicAuth and Keystone identity providers carry.
 */
const remoteConnectionInfo = (description: string, extra: Record<string, JSONSchemaProps>) =>
  obj(
    {
      url: str({ description: 'url is the remote URL to connect to.' }),
      ca: configMapRef('ca (key ca.crt)'),
      tlsClientCert: secretRef('tlsClientCert (key tls.crt)'),
      tlsClientKey: secretRef('tlsClientKey (key tls.key)'),
      ...extra,
    },
    { description },
  );

/**
 * configv1.IdentityProvider, with every provider type's fields declared: the openshift/api OAuth types
 * are stable (compatibility level 1), so, as upstream's CRD, an unknown field is refused (Strict) or
 * pruned rather than copied to the management cluster, where HyperShift's CRD would refuse it.
 * @see https://github.com/openshift/api/blob/master/config/v1/types_oauth.go
 */
const identityProvider = obj(
  {
    name: str({ description: 'name qualifies the identities returned by this provider; unique, a valid path segment.' }),
    mappingMethod: str({ description: 'claim (default), lookup, generate or add.' }),
    type: str({ description: 'BasicAuth, GitHub, GitLab, Google, HTPasswd, Keystone, LDAP, OpenID or RequestHeader.' }),
    basicAuth: remoteConnectionInfo('basicAuth contains configuration options for the BasicAuth IdP.', {}),
    github: obj(
      {
        clientID: str(),
        clientSecret: secretRef('clientSecret (key clientSecret)'),
        organizations: arr(str()),
        teams: arr(str()),
        hostname: str(),
        ca: configMapRef('ca (key ca.crt)'),
      },
      { description: 'github enables user authentication using GitHub credentials.' },
    ),
    gitlab: obj(
      { clientID: str(), clientSecret: secretRef('clientSecret (key clientSecret)'), url: str(), ca: configMapRef('ca (key ca.crt)') },
      { description: 'gitlab enables user authentication using GitLab credentials.' },
    ),
    google: obj(
      { clientID: str(), clientSecret: secretRef('clientSecret (key clientSecret)'), hostedDomain: str() },
      { description: 'google enables user authentication using Google credentials.' },
    ),
    htpasswd: obj({ fileData: secretRef('fileData (key htpasswd)') }, { description: 'htpasswd enables user authentication using an HTPasswd file.' }),
    keystone: remoteConnectionInfo('keystone enables user authentication using keystone password credentials.', { domainName: str() }),
    ldap: obj(
      {
        url: str({ description: 'url is an RFC 2255 URL: ldap://host:port/basedn?attribute?scope?filter.' }),
        bindDN: str(),
        bindPassword: secretRef('bindPassword (key bindPassword)'),
        insecure: bool(),
        ca: configMapRef('ca (key ca.crt)'),
        attributes: obj(
          { id: arr(str()), preferredUsername: arr(str()), name: arr(str()), email: arr(str()) },
          { description: 'attributes maps LDAP attributes to identities.' },
        ),
      },
      { description: 'ldap enables user authentication using LDAP credentials.' },
    ),
    openID: obj(
      {
        clientID: str(),
        clientSecret: secretRef('clientSecret (key clientSecret)'),
        ca: configMapRef('ca (key ca.crt)'),
        extraScopes: arr(str()),
        extraAuthorizeParameters: stringMap(),
        issuer: str({ description: 'issuer is the URL the OpenID Provider asserts as its Issuer Identifier (https, no query or fragment).' }),
        claims: obj(
          {
            preferredUsername: arr(str()),
            name: arr(str()),
            email: arr(str()),
            groups: arr(str({ minLength: 1 }), { 'x-kubernetes-list-type': 'atomic' }),
          },
          { description: 'claims mappings.' },
        ),
      },
      { description: 'openID enables user authentication using OpenID credentials.' },
    ),
    requestHeader: obj(
      {
        loginURL: str(),
        challengeURL: str(),
        ca: configMapRef('ca (key ca.crt)'),
        clientCommonNames: arr(str()),
        headers: arr(str()),
        preferredUsernameHeaders: arr(str()),
        nameHeaders: arr(str()),
        emailHeaders: arr(str()),
      },
      { description: 'requestHeader enables user authentication using request header credentials.' },
    ),
  },
  { description: 'identityProvider provides identities for users authenticating with credentials.' },
);

/** configv1.OAuthSpec (every field declared, see {@link identityProvider}). */
const oauth = obj(
  {
    identityProviders: arr(identityProvider, { description: 'identityProviders is an ordered list of ways for a user to identify themselves.', 'x-kubernetes-list-type': 'atomic' }),
    templates: obj(
      {
        error: secretRef('error template (key errors.html)'),
        login: secretRef('login template (key login.html)'),
        providerSelection: secretRef('providerSelection template (key providers.html)'),
      },
      { description: 'templates allow you to customize pages like the login page.' },
    ),
    tokenConfig: obj(
      {
        accessTokenInactivityTimeout: str(),
        accessTokenInactivityTimeoutSeconds: int32(),
        accessTokenMaxAgeSeconds: int32(),
      },
      { description: 'tokenConfig contains options for authorization and access tokens.' },
    ),
  },
  {
    description: 'oauth configures the integrated OAuth server (only honored when authentication type is IntegratedOAuth).',
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
